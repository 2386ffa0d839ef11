/// Turns one uploaded image into what the origin takes, or says why it cannot: the gateway's
/// image renderer (strip metadata, convert HEIC, shrink to the origin's byte limit). Given to
/// the write decoders by the app; without one, uploads are only checked (JPEG or PNG, within
/// ``DraftLimits/maxImageBytes``).
///
/// Called once per image, on the thread that decodes the body (never an event loop): it may
/// take as long as rendering takes.
public protocol UploadImagePreparer: Sendable {
    /// The bytes to send for `data`, or the end of a field error's sentence about it
    /// ("must be …", "is …"), which the decoder reports as `images[N] <message>`.
    func prepare(_ data: [UInt8]) -> Result<PreparedImage, UploadImageRefusal>
    /// The cheap checks of ``prepare(_:)`` alone (type by its first bytes, size), for a request
    /// that fails anyway: nothing is decoded, but every field error is still reported.
    func check(_ data: [UInt8]) -> UploadImageRefusal?
}

/// An upload ready for the origin: JPEG or PNG, metadata stripped, within its byte limit.
public struct PreparedImage: Sendable, Hashable {
    public var kind: ImageKind
    public var data: [UInt8]

    public init(kind: ImageKind, data: [UInt8]) {
        self.kind = kind
        self.data = data
    }
}

/// Why an upload cannot be sent: the rest of a sentence that starts with the field's name.
public struct UploadImageRefusal: Error, Sendable, Hashable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}
