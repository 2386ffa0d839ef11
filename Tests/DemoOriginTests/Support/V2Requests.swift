@testable import DemoOrigin
import Foundation
import GatewayModels
import TestSupport

/// The demo vendors and the request pieces the v2/v2b tests send.
enum V2 {
    static let one = DemoVendor.demo[0]
    static let two = DemoVendor.demo[1]

    /// Sets the generation (and the paging quirk) of a test origin.
    static func configure(_ generation: OriginGeneration, quirk: Bool = false) -> (inout DemoOriginConfiguration) -> Void {
        { configuration in
            configuration.generation = generation
            configuration.pagingQuirk = quirk
        }
    }

    /// The `identifier` header line of `vendor`.
    static func identifier(_ vendor: DemoVendor) -> [String] { ["identifier: \(vendor.identifier)"] }

    /// The `identifier` header line of `vendor` and a JSON content type.
    static func jsonHeaders(_ vendor: DemoVendor) -> [String] { identifier(vendor) + ["Content-Type: application/json"] }

    /// The `params` part, with the `Content-Type: application/json` some clients sent.
    static func params(_ json: String) -> (String, [UInt8]) {
        ("Content-Disposition: form-data; name=\"params\"\r\nContent-Type: application/json", Array(json.utf8))
    }

    /// One `images` part.
    static func image(_ filename: String, _ bytes: [UInt8], type: String = "image/png") -> (String, [UInt8]) {
        ("Content-Disposition: form-data; name=\"images\"; filename=\"\(filename)\"\r\nContent-Type: \(type)", bytes)
    }

    /// The description key of `generation`'s requests.
    static func descriptionKey(_ generation: OriginGeneration) -> String {
        generation == .v2b ? "description" : "descriptions"
    }

    /// Create params for `generation` (its description key) with `vendor`'s secret; `extra`
    /// is spliced in before the secret (`,"stock":5`).
    static func createParams(_ generation: OriginGeneration, vendor: DemoVendor = one, price: String = "12000", extra: String = "") -> String {
        #"{"name":"테스트 상품","\#(descriptionKey(generation))":"설명입니다","price":\#(price),"currency":"KRW"\#(extra),"secret":"\#(vendor.secret)"}"#
    }
}

extension RawHTTPClient {
    /// `POST /api/products` as `vendor` (no `identifier` header when nil) with these parts.
    func v2Create(_ vendor: DemoVendor?, _ parts: [(String, [UInt8])], identifier: String? = nil) throws -> Response {
        let header = identifier.map { ["identifier: \($0)"] } ?? vendor.map(V2.identifier) ?? []
        return try request(
            "POST", "/api/products", headers: header + ["Content-Type: multipart/form-data; boundary=v2-boundary"],
            body: Bodies.multipart(boundary: "v2-boundary", parts))
    }

    /// A request with a JSON body as `vendor` (no `identifier` header when nil).
    func v2JSON(_ method: String, _ target: String, _ vendor: DemoVendor?, _ json: String) throws -> Response {
        try request(method, target, headers: (vendor.map(V2.identifier) ?? []) + ["Content-Type: application/json"], body: Array(json.utf8))
    }
}
