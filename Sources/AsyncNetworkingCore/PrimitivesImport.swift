// The package's shared primitives (`package` access: visible in this package's modules only, never
// to users), imported once for every file of this module.
@_exported import NetworkingPrimitives
