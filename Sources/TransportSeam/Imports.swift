// The package's shared primitives (`package` access: never seen by users), imported once for every
// file of this module.
@_exported import NetworkingPrimitives
