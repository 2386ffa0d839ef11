// The gateway's ThumbHash for the differential test (Tests/Differential/thumbhash_compare.py): one
// JSON object per line on stdin, one answer per line on stdout, in order.
//   {"encode": [width, height, "base64 RGBA"]}  ->  {"hash": "base64", "ties": [[offset, bits], ...]}
//   {"decode": "base64 hash"}                   ->  {"width": w, "height": h, "rgba": "base64"}
// A refusal answers {"error": "..."}.
import Foundation
import GatewayModels

struct Request: Decodable {
    var encode: Encode?
    var decode: String?

    struct Encode: Decodable {
        var width: Int
        var height: Int
        var rgba: String

        init(from decoder: any Decoder) throws {
            var values = try decoder.unkeyedContainer()
            width = try values.decode(Int.self)
            height = try values.decode(Int.self)
            rgba = try values.decode(String.self)
        }
    }
}

func answer(_ line: String) -> [String: Any] {
    guard let request = try? JSONDecoder().decode(Request.self, from: Data(line.utf8)) else { return ["error": "unreadable request"] }
    do {
        if let encode = request.encode {
            guard let rgba = Data(base64Encoded: encode.rgba) else { return ["error": "rgba is not base64"] }
            let result = try ThumbHash.encodeReportingTies(width: encode.width, height: encode.height, rgba: Array(rgba))
            return ["hash": Data(result.hash).base64EncodedString(), "ties": result.ties.map { [$0.offset, $0.bits] }]
        }
        if let decode = request.decode {
            guard let hash = Data(base64Encoded: decode) else { return ["error": "hash is not base64"] }
            let preview = try ThumbHash.decode(Array(hash))
            return ["width": preview.width, "height": preview.height, "rgba": Data(preview.rgba).base64EncodedString()]
        }
        return ["error": "neither encode nor decode"]
    } catch {
        return ["error": "\(error)"]
    }
}

while let line = readLine() {
    let object = answer(line)
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(#"{"error":"unwritable"}"#.utf8)
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}
