internal import CGit2
internal import FoundationEssentials

/// libgit2's smart subtransport for ssh URLs, over OpenSSH's own client: each advertisement
/// action (`*_LS`) starts an `ssh` child running the service on the server (``SSHProcess``),
/// and the action that follows it (a fetch's negotiation, a push) speaks over the same child,
/// as libgit2's own ssh subtransport does over one channel.
///
/// The C structure (`concord_subtransport`) holds this object retained until libgit2 frees
/// the subtransport; the stream's (`concord_subtransport_stream`) belongs to it, and libgit2's
/// smart transport frees the stream (ending the child) before it closes the subtransport.
final class SSHSubtransport {
    let client: SSHClient
    let pointer: UnsafeMutablePointer<concord_subtransport>
    private var stream: UnsafeMutablePointer<concord_subtransport_stream>?
    private var process: SSHProcess?

    private init(client: SSHClient) {
        self.client = client
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: concord_subtransport())
    }

    /// A new subtransport for the transport `owner`, handed to libgit2, which frees it.
    static func make(client: SSHClient) -> UnsafeMutablePointer<git_smart_subtransport> {
        let subtransport = SSHSubtransport(client: client)
        subtransport.pointer.pointee.parent.action = actionCallback
        subtransport.pointer.pointee.parent.close = closeCallback
        subtransport.pointer.pointee.parent.free = freeCallback
        subtransport.pointer.pointee.owner = Unmanaged.passRetained(subtransport).toOpaque()
        return UnsafeMutableRawPointer(subtransport.pointer).assumingMemoryBound(to: git_smart_subtransport.self)
    }

    /// The stream for `action` on `url`: a new `ssh` child for an advertisement, else the
    /// child the advertisement started.
    /// - Returns: the stream, or nil with libgit2's error set.
    fileprivate func stream(for action: git_smart_service_t, url: String) -> UnsafeMutablePointer<git_smart_subtransport_stream>? {
        let upload = action == GIT_SERVICE_UPLOADPACK_LS || action == GIT_SERVICE_UPLOADPACK
        guard action == GIT_SERVICE_UPLOADPACK_LS || action == GIT_SERVICE_RECEIVEPACK_LS else {
            guard let stream else {
                git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "\(upload ? "upload" : "receive")-pack asked for before its advertisement")
                return nil
            }
            return Self.parent(of: stream)
        }
        endStream()
        guard let destination = SSHDestination(url: url) else {
            git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "not an ssh URL that can be reached: \(url)")
            return nil
        }
        let operation = NetworkOperation.current ?? NetworkOperation(limits: NetworkLimits())
        do {
            process = try SSHProcess(
                running: destination.command(for: upload ? "git-upload-pack" : "git-receive-pack"), at: destination, client: client, operation: operation)
        } catch {
            git_error_set_str(Int32(error.errorClass.rawValue), error.message)
            return nil
        }
        let made = UnsafeMutablePointer<concord_subtransport_stream>.allocate(capacity: 1)
        made.initialize(to: concord_subtransport_stream())
        made.pointee.parent.subtransport = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: git_smart_subtransport.self)
        made.pointee.parent.read = readCallback
        made.pointee.parent.write = writeCallback
        made.pointee.parent.free = streamFreeCallback
        made.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        stream = made
        return Self.parent(of: made)
    }

    /// Ends the child and frees the stream, if there is one.
    fileprivate func endStream() {
        process?.close()
        process = nil
        if let stream {
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        stream = nil
    }

    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>?, length: Int, count: UnsafeMutablePointer<Int>?) -> Int32 {
        guard let process else {
            git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "the ssh stream is closed")
            return -1
        }
        let read = process.read(into: buffer, length: length)
        guard read >= 0 else { return Int32(read) }
        count?.pointee = read
        return 0
    }

    fileprivate func write(from buffer: UnsafePointer<CChar>?, length: Int) -> Int32 {
        guard let process else {
            git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "the ssh stream is closed")
            return -1
        }
        return process.write(from: buffer, length: length)
    }

    /// Frees the C structure; called once, by libgit2.
    fileprivate func free() {
        endStream()
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    private static func parent(of stream: UnsafeMutablePointer<concord_subtransport_stream>) -> UnsafeMutablePointer<git_smart_subtransport_stream> {
        UnsafeMutableRawPointer(stream).assumingMemoryBound(to: git_smart_subtransport_stream.self)
    }

    fileprivate static func owning(_ transport: UnsafeMutablePointer<git_smart_subtransport>?) -> SSHSubtransport? {
        let raw = transport.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: concord_subtransport.self) }
        return raw?.pointee.owner.map { Unmanaged<SSHSubtransport>.fromOpaque($0).takeUnretainedValue() }
    }

    fileprivate static func owning(_ stream: UnsafeMutablePointer<git_smart_subtransport_stream>?) -> SSHSubtransport? {
        let raw = stream.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: concord_subtransport_stream.self) }
        return raw?.pointee.owner.map { Unmanaged<SSHSubtransport>.fromOpaque($0).takeUnretainedValue() }
    }
}

private let actionCallback:
    @convention(c) (
        UnsafeMutablePointer<UnsafeMutablePointer<git_smart_subtransport_stream>?>?, UnsafeMutablePointer<git_smart_subtransport>?,
        UnsafePointer<CChar>?, git_smart_service_t
    ) -> Int32 = { out, transport, url, action in
        guard let out, let url, let subtransport = SSHSubtransport.owning(transport) else { return -1 }
        guard let stream = subtransport.stream(for: action, url: String(cString: url)) else { return -1 }
        out.pointee = stream
        return 0
    }

private let closeCallback: @convention(c) (UnsafeMutablePointer<git_smart_subtransport>?) -> Int32 = { transport in
    SSHSubtransport.owning(transport)?.endStream()
    return 0
}

private let freeCallback: @convention(c) (UnsafeMutablePointer<git_smart_subtransport>?) -> Void = { transport in
    guard let transport else { return }
    let raw = UnsafeMutableRawPointer(transport).assumingMemoryBound(to: concord_subtransport.self)
    guard let owner = raw.pointee.owner else { return }
    let subtransport = Unmanaged<SSHSubtransport>.fromOpaque(owner)
    subtransport.takeUnretainedValue().free()
    subtransport.release()
}

private let readCallback: @convention(c) (UnsafeMutablePointer<git_smart_subtransport_stream>?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutablePointer<Int>?) -> Int32 = {
    stream, buffer, length, count in
    SSHSubtransport.owning(stream)?.read(into: buffer, length: length, count: count) ?? -1
}

private let writeCallback: @convention(c) (UnsafeMutablePointer<git_smart_subtransport_stream>?, UnsafePointer<CChar>?, Int) -> Int32 = {
    stream, buffer, length in
    SSHSubtransport.owning(stream)?.write(from: buffer, length: length) ?? -1
}

private let streamFreeCallback: @convention(c) (UnsafeMutablePointer<git_smart_subtransport_stream>?) -> Void = { stream in
    SSHSubtransport.owning(stream)?.endStream()
}
