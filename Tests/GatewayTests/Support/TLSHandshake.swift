import Foundation

/// One HTTPS request made by `openssl s_client` to 127.0.0.1, run to its end: whether the
/// session was resumed, the certificate the server presented, and the answer. The client
/// reads until the server closes (`Connection: close`), so the session it saves carries the
/// tickets the server sent after the handshake.
struct TLSHandshake {
    /// `New` (a full handshake) or `Reused`.
    let resumed: Bool
    /// `TLSv1.3` or `TLSv1.2`.
    let negotiated: String
    /// The leaf certificate as s_client printed it (PEM).
    let certificatePEM: String
    /// Everything s_client wrote to standard output (the session summary and the answer).
    let output: String

    enum Version: String, CustomStringConvertible, Sendable, CaseIterable {
        case tls13 = "-tls1_3"
        case tls12 = "-tls1_2"
        var description: String { self == .tls13 ? "TLS 1.3" : "TLS 1.2" }
    }

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to `port` with `version`, trusting `caFile` (which must name 127.0.0.1),
    /// offering the session in `sessionIn` when given and saving the session to `sessionOut`;
    /// sends `GET path` with `Connection: close`.
    ///
    /// - Throws: `Failed` when s_client cannot start, runs over 10 s or the handshake fails.
    init(port: Int, version: Version, caFile: String, sessionIn: String? = nil, sessionOut: String? = nil, path: String = "/healthz") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        var arguments = [
            "s_client", version.rawValue, "-connect", "127.0.0.1:\(port)", "-CAfile", caFile, "-verify_ip", "127.0.0.1",
            "-verify_return_error", "-ign_eof",
        ]
        if let sessionIn { arguments += ["-sess_in", sessionIn] }
        if let sessionOut { arguments += ["-sess_out", sessionOut] }
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        input.fileHandleForWriting.write(Data("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        if exited.wait(timeout: .now() + 10) == .timedOut {
            process.terminate()
            throw Failed(description: "openssl s_client ran over 10 s")
        }
        guard let summary = text.firstMatch(of: /\n(New|Reused), (TLSv1\.[23]), Cipher is/) else {
            throw Failed(description: "openssl s_client: no handshake\n\(text)")
        }
        resumed = summary.1 == "Reused"
        negotiated = String(summary.2)
        certificatePEM = text.firstMatch(of: /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/).map { String($0.0) } ?? ""
        self.output = text
    }

    /// The session ticket in the session file `path` (from `openssl sess_id -text`).
    static func ticket(inSession path: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["sess_id", "-in", path, "-noout", "-text"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // "    0000 - 5f 2b ...   _+..." lines after "TLS session ticket:".
        guard let start = text.range(of: "TLS session ticket:\n") else { throw Failed(description: "no ticket in \(path)\n\(text)") }
        var bytes: [UInt8] = []
        for line in text[start.upperBound...].split(separator: "\n") {
            guard let row = line.firstMatch(of: /^\s*[0-9a-f]{4} - ((?:[0-9a-f]{2}[ -]){1,16})/) else { break }
            bytes += row.1.split(whereSeparator: { $0 == " " || $0 == "-" }).compactMap { UInt8($0, radix: 16) }
        }
        return bytes
    }
}
