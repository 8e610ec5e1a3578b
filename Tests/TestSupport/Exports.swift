// What every suite uses, re-exported so that a test file imports only the test support and the
// modules whose internals it tests (`@testable`): Foundation (and FoundationNetworking on Linux),
// swift-testing, the library's public API and the loopback server.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
@_exported import Testing
@_exported import AsyncNetworking
@_exported import LoopbackServer
