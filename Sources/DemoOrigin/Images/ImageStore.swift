import Foundation
import GatewayModels
import HTTPInterface
import GatewaySupport
import Synchronization

/// Serves item images the way an object store (S3) does: `GET /images/{id}-{n}.{ext}` and
/// `GET /thumbnails/{id}-{n}.{ext}` with `Content-Type`, `Content-Length`, a strong `ETag`
/// (a hash of the bytes) and `Last-Modified`; 304 for a matching `If-None-Match` (or, without
/// one, an `If-Modified-Since` not before the image). Uploaded images are served unchanged
/// at both paths; generated ones are 64 px PNGs, 32 px as thumbnails, drawn once and kept;
/// photos (``DemoPhoto``) are drawn once per process by ``PhotoRenderer``.
final class ImageStore: Sendable {
    enum Size: String, Sendable {
        case image = "images"
        case thumbnail = "thumbnails"
    }

    /// One object ready to serve.
    struct Object: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var etag: String
        var lastModified: Date
    }

    private let rendered = Locked<[String: [UInt8]]>([:])

    /// The answer to a GET (or HEAD) of `file` for an item of `catalogue`; `notFound` when
    /// there is no such object.
    func response(
        size: Size, file: String, request: GatewayRequest, catalogue: Catalogue,
        notFound: GatewayResponse = V1Failure.notFound.response
    ) -> GatewayResponse {
        guard let object = object(size: size, file: file, catalogue: catalogue) else { return notFound }
        var headers: HTTPHeaders = [
            "Content-Type": object.contentType, "ETag": object.etag, "Last-Modified": HTTPDate.format(object.lastModified),
        ]
        if Self.notModified(object, request: request) { return GatewayResponse(status: 304, headers: headers) }
        headers.add("Content-Length", String(object.bytes.count))
        return GatewayResponse(status: 200, headers: headers, body: object.bytes)
    }

    /// The object named `file` (`7-2.png`), or nil when there is none.
    func object(size: Size, file: String, catalogue: Catalogue) -> Object? {
        guard let (id, number, fileExtension) = Self.parse(file), let item = catalogue.item(id: id),
            number >= 1, number <= item.images.count
        else { return nil }
        let image = item.images[number - 1]
        guard image.kind.fileExtension == fileExtension else { return nil }
        switch image {
        case .uploaded(let bytes, let kind, let lastModified):
            return Object(bytes: bytes, contentType: kind.mimeType, etag: Self.etag(bytes), lastModified: lastModified)
        case .generated:
            let bytes = generated(size: size, itemID: id, number: number)
            return Object(
                bytes: bytes, contentType: ImageKind.png.mimeType, etag: Self.etag(bytes),
                lastModified: EpochSeconds.date(item.registrationDate))
        case .photo(let photo):
            guard let bytes = self.photo(photo, size: size, itemID: id, number: number) else { return nil }
            return Object(
                bytes: bytes, contentType: photo.kind.mimeType, etag: Self.etag(bytes), lastModified: EpochSeconds.date(item.registrationDate))
        }
    }

    /// A photo, drawn on first use in this process (the same bytes for every demo origin in
    /// it, so tests starting hundreds draw each once; ``warm(_:)`` draws them off the loop at
    /// start); nil when libvips cannot encode it (the object is then missing: 404).
    private func photo(_ photo: DemoPhoto, size: Size, itemID: Int64, number: Int) -> [UInt8]? {
        let key = "\(photo.rawValue)/\(size.rawValue)/\(itemID)-\(number)"
        if let bytes = Self.photos.withLock({ $0[key] }) { return bytes }
        guard let bytes = try? PhotoRenderer.render(photo, itemID: itemID, number: number, thumbnail: size == .thumbnail) else { return nil }
        Self.photos.withLock { $0[key] = bytes }
        return bytes
    }

    private static let photos = Locked<[String: [UInt8]]>([:])
    private static let warming = NSLock()
    /// Set once the process is about to exit: warm-ups draw no more.
    private static let warmUpStopped = Atomic<Bool>(false)

    /// Stops every warm-up of this process after the photo it is drawing, and waits for that
    /// one: for a process about to exit, which must not run its exit handlers while another
    /// thread is inside libvips (GLib's type system, started on that thread, then aborts the
    /// exit). Photos still asked for are drawn on first use.
    static func stopWarmingUp() {
        warmUpStopped.store(true, ordering: .releasing)
        warming.lock()
        warming.unlock()
    }

    private func generated(size: Size, itemID: Int64, number: Int) -> [UInt8] {
        let key = "\(size.rawValue)/\(itemID)-\(number)"
        if let bytes = rendered.withLock({ $0[key] }) { return bytes }
        let side = size == .image ? ImageRenderer.imageSide : ImageRenderer.thumbnailSide
        let bytes = ImageRenderer.png(itemID: itemID, number: number, side: side)
        rendered.withLock { $0[key] = bytes }
        return bytes
    }

    /// Draws every photo of `catalogue`'s items (both sizes) not drawn yet in this process,
    /// so that no request waits for one. Synchronous: call it off the loop. One warm-up draws
    /// at a time in a process (a test process starts hundreds of demo origins): the others
    /// wait, then find the photos drawn.
    func warm(_ catalogue: Catalogue) {
        Self.warming.lock()
        defer { Self.warming.unlock() }
        for item in catalogue.all {
            for (index, image) in item.images.enumerated() {
                guard !Self.warmUpStopped.load(ordering: .acquiring) else { return }
                guard case .photo(let style) = image else { continue }
                for size in [Size.image, .thumbnail] { _ = photo(style, size: size, itemID: item.id, number: index + 1) }
            }
        }
    }

    /// `7-2.png` → (7, 2, "png").
    static func parse(_ file: String) -> (Int64, Int, String)? {
        let nameAndExtension = file.split(separator: ".", omittingEmptySubsequences: false)
        guard nameAndExtension.count == 2 else { return nil }
        let idAndNumber = nameAndExtension[0].split(separator: "-", omittingEmptySubsequences: false)
        // Object keys are exact: `03-1.png` is not `3-1.png`.
        guard idAndNumber.count == 2, let id = PositiveInteger.parse(idAndNumber[0]),
            let number = PositiveInteger.parse(idAndNumber[1]), "\(id)-\(number)" == nameAndExtension[0]
        else { return nil }
        return (id, Int(number), String(nameAndExtension[1]))
    }

    /// A strong validator: FNV-1a 64 of the bytes, quoted.
    static func etag(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - digits.count) + digits + "\""
    }

    /// RFC 9110 §13.1.2 and §13.1.3: If-None-Match (weak comparison, `*`) wins over
    /// If-Modified-Since.
    static func notModified(_ object: Object, request: GatewayRequest) -> Bool {
        if let ifNoneMatch = request.headers["If-None-Match"] {
            let tags = ifNoneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains { $0 == "*" || $0 == object.etag || $0 == "W/" + object.etag }
        }
        if let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            return object.lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        }
        return false
    }
}
