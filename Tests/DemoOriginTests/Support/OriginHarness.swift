@testable import DemoOrigin
import Foundation
import Logging
import TestSupport

/// A demo origin on 127.0.0.1 and a free port for one test, shut down whatever happens.
enum OriginHarness {
    static func with<T>(
        configure: (inout DemoOriginConfiguration) -> Void = { _ in },
        _ body: (DemoOrigin, Int) async throws -> T
    ) async throws -> T {
        var configuration = DemoOriginConfiguration()
        configuration.port = 0
        configure(&configuration)
        var logger = Logger(label: "test-demo-origin")
        logger.logLevel = .warning
        let origin = DemoOrigin(configuration: configuration, logger: logger)
        let url = try origin.start()
        defer { origin.shutdown() }
        return try await body(origin, url.port ?? 0)
    }
}

/// Request bodies the tests send.
enum Bodies {
    /// A 2 × 2 PNG whose pixels depend on `seed`.
    static func png(_ seed: UInt8 = 1) -> [UInt8] {
        PNGEncoder.encode(width: 2, height: 2, rgb: (0..<12).map { UInt8($0) &* seed })
    }

    /// The start of a JPEG file (SOI and a JFIF APP0 segment): enough for a magic-byte check.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9]

    /// One multipart/form-data body, framed by hand: `parts` are (headers, content).
    static func multipart(boundary: String, _ parts: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (headers, content) in parts {
            out += Array("--\(boundary)\r\n\(headers)\r\n\r\n".utf8) + content + Array("\r\n".utf8)
        }
        return out + Array("--\(boundary)--\r\n".utf8)
    }

    static func field(_ name: String, _ value: String) -> (String, [UInt8]) {
        ("Content-Disposition: form-data; name=\"\(name)\"", Array(value.utf8))
    }

    static func image(_ filename: String, _ bytes: [UInt8], type: String = "image/png") -> (String, [UInt8]) {
        ("Content-Disposition: form-data; name=\"images[]\"; filename=\"\(filename)\"\r\nContent-Type: \(type)", bytes)
    }

    /// The text fields of a complete create form.
    static func createFields(title: String = "테스트 상품", password: String = "secret") -> [(String, [UInt8])] {
        [
            field("title", title), field("descriptions", "설명"), field("price", "12000"), field("currency", "KRW"),
            field("stock", "3"), field("password", password),
        ]
    }
}

extension RawHTTPClient {
    /// A multipart request with `boundary` (quoted in the header when `quoted`).
    func multipart(_ method: String, _ target: String, boundary: String, quoted: Bool = false, _ parts: [(String, [UInt8])]) throws -> Response {
        let header = quoted ? "multipart/form-data; boundary=\"\(boundary)\"" : "multipart/form-data; boundary=\(boundary)"
        return try request(method, target, headers: ["Content-Type: \(header)"], body: Bodies.multipart(boundary: boundary, parts))
    }
}

/// The upstream samples in GatewayModelsTests' fixtures folder.
enum SampleFiles {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GatewayModelsTests/Fixtures")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
    }
}

extension RawHTTPClient.Response {
    /// The `id`s of a `{"page","items"}` body, in order.
    func itemIDs() throws -> [Int] {
        let items = try json()["items"] as? [[String: Any]] ?? []
        return items.map { $0["id"] as? Int ?? -1 }
    }
}
