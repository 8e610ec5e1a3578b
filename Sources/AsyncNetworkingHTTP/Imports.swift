// The layers this module is built on, imported once for every file of it: the core (public API and
// its `package` seam) and the package's shared primitives (`package` access: never seen by users).
@_exported import AsyncNetworkingCore
@_exported import NetworkingPrimitives
