#if os(Linux)
import Glibc

/// Moves the calling thread into another network namespace, for tests that run a monitor inside
/// one (`/var/run/netns/<name>`, made by `ip netns add`). Sockets opened by that thread afterwards
/// (netlink, and the one `getifaddrs` opens) belong to that namespace.
///
/// `setns(2)` is not exported by Glibc's Swift module map, so it is looked up with `dlsym` in the
/// C library already loaded.
enum NetworkNamespace {
    private typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
    private static let cloneNewNet: Int32 = 0x4000_0000 // CLONE_NEWNET

    /// Enters the namespace at `path` on the calling thread; returns an errno on failure.
    static func enter(_ path: String) -> Int32? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return ENOSYS }
        let setNamespace = unsafeBitCast(symbol, to: SetNamespace.self)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        return setNamespace(descriptor, cloneNewNet) == 0 ? nil : errno
    }
}
#endif
