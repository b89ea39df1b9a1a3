import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `concord-ui` serving a container, and HTTP requests to it as a browser (or an
/// attacker) sends them: raw HTTP/1.1 over a socket, every header as given.
final class UIServer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The body as a JSON object.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
    }

    /// `concord-ui` beside the test bundle.
    static let binary: String = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("concord-ui").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("concord-ui").path
    }()

    let process = Process()
    let port: Int
    let token: String
    /// The cookie the address's token becomes.
    var cookie: String { "concord_ui_\(port)=\(token)" }
    private(set) var csrf = ""

    /// Starts `concord-ui` on the container at `root` and reads the address it prints.
    init(root: String) throws {
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = [root]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let match = text.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64})/), let port = Int(match.1) else {
            process.terminate()
            throw Failure(description: "concord-ui printed no address: \(text)")
        }
        self.port = port
        token = String(match.2)
        csrf = (try get("/api/session").json["csrf"] as? String) ?? ""
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// A GET with the cookie (and the loopback Host), as the page makes it.
    func get(_ path: String) throws -> Answer {
        try request("GET", path, headers: ["Cookie": cookie])
    }

    /// A POST of `json` as the page makes it: same origin, the CSRF token.
    func post(_ path: String, _ json: [String: Any]) throws -> Answer {
        try request("POST", path, headers: writeHeaders(), body: try JSONSerialization.data(withJSONObject: json))
    }

    /// The headers of a write the page would send: its cookie, origin and CSRF token.
    func writeHeaders() -> [String: String] {
        ["Cookie": cookie, "Origin": "http://127.0.0.1:\(port)", "X-Concord-CSRF": csrf, "Content-Type": "application/json"]
    }

    /// One request: `Host` is 127.0.0.1:PORT unless `headers` gives one.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data()) throws -> Answer {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: errno \(errno)") }
        var head = "\(method) \(path) HTTP/1.1\r\n"
        var fields = ["Host": "127.0.0.1:\(port)", "Connection": "close", "Content-Length": "\(body.count)"]
        fields.merge(headers) { $1 }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        let message = Data((head + "\r\n").utf8) + body
        var sent = 0
        while sent < message.count {
            let count = message[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += count
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return try Self.parse(received)
    }

    private static func parse(_ data: Data) throws -> Answer {
        guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else { throw Failure(description: "no answer") }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = dechunked(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    private static func dechunked(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let lineEnd = rest.firstRange(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let chunkEnd = rest.index(start, offsetBy: size)
            result += rest[start..<chunkEnd]
            rest = rest[chunkEnd...].dropFirst(2)
        }
        return result
    }
}
