// What the curl driver is built on, imported once for every file of it: the values that cross the
// seam (response heads, errors, TLS security values, proxies) and the package's shared primitives.
@_exported import TransportSeam
@_exported import NetworkingPrimitives
