/// One image a client uploads with a product, already checked: JPEG or PNG by its bytes.
public struct ImageUpload: Sendable, Hashable {
    /// The client's file name (or `image-N.jpg`/`.png` when it sent none).
    public var filename: String
    /// What the bytes are, detected from their magic numbers (the declared type is not trusted).
    public var kind: ImageKind
    public var data: [UInt8]

    public init(filename: String, kind: ImageKind, data: [UInt8]) {
        self.filename = filename
        self.kind = kind
        self.data = data
    }
}
