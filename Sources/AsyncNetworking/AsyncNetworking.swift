// AsyncNetworking: the one module most users import. It re-exports the layers, each its own module:
//
// - AsyncNetworkingCore: the session actor (`SessionManager`), the transfer state machine, events,
//   transfers, batches, errors, security values, reachability, cookies, WebSockets, and the
//   transports under the seam (libcurl, URLSession, stubs).
// - AsyncNetworkingHTTP: `HTTPClient`, serializers, the request pipeline, the HTTP cache and
//   response streams (SSE, NDJSON), built on the core's public API and its `package` seam.
@_exported import AsyncNetworkingCore
@_exported import AsyncNetworkingHTTP
