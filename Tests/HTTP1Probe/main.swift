// Reads a corpus of request streams (JSON Lines: {"id", "input": base64}) on standard input
// and writes what the gateway's RequestDecoder makes of each, one JSON line per case:
// {"id", "verdict": "accept"|"reject"|"incomplete", "messages": [...], "error"}.
// scripts/differential compares these lines with llhttp's and h11's.
import Foundation
import HTTPCodec

func verdict(for input: [UInt8]) -> [String: Any] {
    var decoder = RequestDecoder()
    var buffer: [UInt8] = []
    var messages: [[String: Any]] = []
    buffer.append(contentsOf: input)
    while true {
        let result = buffer.withUnsafeMutableBytes { decoder.decode($0) }
        switch result {
        case .head:
            continue
        case .complete(let message):
            messages.append(buffer.withUnsafeBytes { bytes in
                let head = message.head
                return [
                    "method": head.method.string(in: bytes),
                    "target": head.target.string(in: bytes),
                    "version": head.minorVersion == 0 ? "1.0" : "1.1",
                    "headers": head.fields.map { field in
                        [latin1(field.name.bytes(in: bytes)).lowercased(), latin1(field.value.bytes(in: bytes))]
                    },
                    "body": Data(message.body.bytes(in: bytes)).base64EncodedString(),
                ]
            })
            buffer.removeFirst(message.length)
            // After a request that ends the connection, a server reads nothing more.
            if !message.head.keepAlive { return ["verdict": "accept", "messages": messages, "error": NSNull()] }
        case .failure(let error):
            return ["verdict": "reject", "messages": messages, "error": "\(error.status) \(error)"]
        case .needMore:
            // Empty lines between requests are skipped, so a stream that ends with them ended
            // cleanly.
            let clean = buffer.allSatisfy { $0 == 0x0D || $0 == 0x0A }
            return ["verdict": clean ? "accept" : "incomplete", "messages": messages, "error": NSNull()]
        }
    }
}

func latin1(_ bytes: UnsafeRawBufferPointer) -> String {
    String(bytes.map { Character(Unicode.Scalar($0)) })
}

while let line = readLine(strippingNewline: true) {
    guard !line.isEmpty,
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let id = object["id"] as? String, let encoded = object["input"] as? String,
        let input = Data(base64Encoded: encoded)
    else {
        FileHandle.standardError.write(Data("http1-probe: unreadable line\n".utf8))
        exit(2)
    }
    var output = verdict(for: [UInt8](input))
    output["id"] = id
    let data = try JSONSerialization.data(withJSONObject: output, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}
