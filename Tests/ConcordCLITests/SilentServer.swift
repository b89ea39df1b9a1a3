import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on 127.0.0.1 that accepts connections and never answers: a command that
/// reaches it waits until it is killed (or its own time-out), long enough to look at it.
final class SilentServer {
    /// The port it listens on.
    let port: Int
    private let descriptor: Int32
    private var accepted: [Int32] = []

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw ServerError("cannot listen on 127.0.0.1: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptor = descriptor
    }

    /// Waits up to `seconds` for a client to connect, and keeps the connection open without a
    /// word; false when none came.
    func waitForConnection(within seconds: Double) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&request, 1, Int32(seconds * 1000)) == 1 else { return false }
        let client = accept(descriptor, nil, nil)
        guard client >= 0 else { return false }
        accepted.append(client)
        return true
    }

    deinit {
        for client in accepted { close(client) }
        close(descriptor)
    }
}
