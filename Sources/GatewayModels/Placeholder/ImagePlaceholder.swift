import Foundation
import GatewaySupport

/// The placeholder of an origin image URL when one is known (nil: not known yet, or its
/// source failed), given the URL and its position in its list (0: the first thumbnail, the
/// one a list cell shows). Called once per image on the mapping's thread: cheap and
/// thread-safe.
public typealias ImagePlaceholderLookup = @Sendable (_ url: String, _ position: Int) -> ImagePlaceholder?

/// What a client needs to lay an image out before it arrives: the source's size as shown
/// (EXIF orientation applied) and its ThumbHash. Pure value.
public struct ImagePlaceholder: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// ThumbHash bytes (about 25; base64 in the contract).
    public let thumbHash: [UInt8]

    public init(width: Int, height: Int, thumbHash: [UInt8]) {
        self.width = width
        self.height = height
        self.thumbHash = thumbHash
    }

    /// The placeholder of a source `sourceWidth` × `sourceHeight` from a preview of it (at most
    /// 100 pixels a side, RGBA with straight alpha).
    ///
    /// - Throws: `ThumbHash.Failure` for a preview ThumbHash refuses.
    public init(sourceWidth: Int, sourceHeight: Int, previewWidth: Int, previewHeight: Int, rgba: [UInt8]) throws(ThumbHash.Failure) {
        width = sourceWidth
        height = sourceHeight
        thumbHash = try ThumbHash.encode(width: previewWidth, height: previewHeight, rgba: rgba)
    }

    /// The record stored beside a source (disk tier): a version byte (1), width and height as
    /// big-endian UInt32, then the hash.
    public var record: [UInt8] {
        var bytes: [UInt8] = [Self.recordVersion]
        for value in [width, height] { bytes += withUnsafeBytes(of: UInt32(clamping: value).bigEndian) { Array($0) } }
        return bytes + thumbHash
    }

    /// A record read back; nil unless it is version 1 with positive sizes and a hash of 5 to
    /// 64 bytes (ThumbHash's shortest is 5 bytes, its longest about 30).
    public init?(record: [UInt8]) {
        guard record.count >= 9 + 5, record.count <= 9 + 64, record[0] == Self.recordVersion else { return nil }
        let width = record[1..<5].reduce(0) { $0 << 8 | Int($1) }
        let height = record[5..<9].reduce(0) { $0 << 8 | Int($1) }
        guard width > 0, height > 0 else { return nil }
        self.init(width: width, height: height, thumbHash: Array(record[9...]))
    }

    private static let recordVersion: UInt8 = 1

    /// `{"width":…,"height":…,"thumbHash":"…"}`, the hash in standard base64 with padding.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("width"); writer.integer(Int64(width))
        writer.key("height"); writer.integer(Int64(height))
        writer.key("thumbHash"); writer.string(Data(thumbHash).base64EncodedString())
        writer.endObject()
    }

    /// `placeholders` as a JSON array, `null` for each unknown one.
    static func write(_ placeholders: [ImagePlaceholder?], to writer: inout JSONWriter) {
        writer.beginArray()
        for placeholder in placeholders {
            if let placeholder { placeholder.write(to: &writer) } else { writer.null() }
        }
        writer.endArray()
    }
}
