// What the core is built on, imported once for every file of it: the values that cross the seam,
// the transports under it, and the package's shared primitives (`package` access: never seen by
// users).
@_exported import TransportSeam
@_exported import CurlTransport
@_exported import URLSessionTransport
@_exported import AsyncNetworkingTesting
@_exported import NetworkingPrimitives
