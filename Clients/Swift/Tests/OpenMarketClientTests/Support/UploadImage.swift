import Foundation
import OpenAPIRuntime
import OpenMarketClient

/// A real image to upload: the demo origin's picture of product 3 at its source size, as the
/// gateway serves it when neither AVIF nor WebP is asked for (PNG, 64 pixels wide).
func uploadImage(from client: Client) async throws -> [UInt8] {
    let product = try await client.getProduct(path: .init(id: 3)).ok.body.json
    guard let token = product.images.first?.split(separator: "/").last else { throw TestFailure("product 3 has no image") }
    let output = try await client.getImage(
        path: .init(token: String(token)), headers: .init(accept: ImageFormats.acceptableContentTypes(avif: false, webp: false)))
    guard case .png(let body) = try output.ok.body else { throw TestFailure("not PNG: \(output)") }
    let bytes = try await [UInt8](collecting: body, upTo: 1 << 20)
    guard bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]) else { throw TestFailure("not PNG bytes") }
    return bytes
}
