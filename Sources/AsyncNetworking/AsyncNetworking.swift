// AsyncNetworking: the one module most users import. It re-exports the layers, each its own module:
//
// - AsyncNetworkingCore: the session actor (`SessionManager`), the transfer state machine, events,
//   transfers, batches, response streams, WebSockets, cookies, reachability, and one adapter per
//   transport; it re-exports what lies under it: TransportSeam (errors, security values, attempt
//   events), CurlTransport, URLSessionTransport and AsyncNetworkingTesting (stubs).
// - AsyncNetworkingHTTP: `HTTPClient`, serializers, the request pipeline and the HTTP cache, built
//   on the core's public API and its `package` seam.
@_exported import AsyncNetworkingCore
@_exported import AsyncNetworkingHTTP
