import Foundation

/// A throwaway self-signed certificate and key, made with the `openssl` command in a new
/// temporary directory.
struct TestCertificate {
    let certificateFile: String
    let keyFile: String

    /// A P-256 certificate for `subjectAltNames` (`DNS:localhost`, `IP:127.0.0.1`).
    init(subjectAltNames: [String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificateFile = directory.appendingPathComponent("cert.pem").path
        keyFile = directory.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyFile, "-out", certificateFile, "-days", "2", "-subj", "/CN=gateway-test",
            "-addext", "subjectAltName=" + subjectAltNames.joined(separator: ","),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        exited.wait()
        guard process.terminationStatus == 0, FileManager.default.fileExists(atPath: certificateFile) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl req failed"])
        }
    }
}
