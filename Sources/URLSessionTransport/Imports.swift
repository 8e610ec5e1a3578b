// What the URLSession transport is built on, imported once for every file of it: the values that
// cross the seam (attempt events, errors, security values) and the package's shared primitives.
@_exported import TransportSeam
@_exported import NetworkingPrimitives
