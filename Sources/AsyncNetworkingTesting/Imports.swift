// What the stubs transport is built on, imported once for every file of it: the values that cross
// the seam (attempt events, response heads, errors, HTTP methods) and the package's primitives.
@_exported import TransportSeam
@_exported import NetworkingPrimitives
