/// The limits a product draft is validated against.
///
/// Defaults, and where they come from (see shared/docs/upstream-api.md):
/// - `title` 1–100 characters (the v2 apps' 100 upper bound; 1 instead of 3 so that short
///   names are the origin's call), `description` 1–1000 characters (v2's upper bound);
///   counted in Unicode characters (grapheme clusters), after nothing is trimmed.
/// - 1–5 images on create, at most 5 on update (the v1 server's own error and the v2 course
///   requirement), each at most 300 KB = 307 200 bytes (the v2 requirement).
/// - `password` 1–100 characters (no origin limit is known); required unless
///   ``passwordRequired`` is false (a v2/v2b write the gateway makes with the vendor
///   credentials it holds for the caller's verified token).
public struct DraftLimits: Sendable, Hashable {
    public var title: ClosedRange<Int>
    public var description: ClosedRange<Int>
    public var password: ClosedRange<Int>
    /// Whether a body without `password` is refused. When false and none is sent, the
    /// decoded value's `password` is empty (a sent one is never: see ``password``).
    public var passwordRequired = true
    public var maxImages: Int
    public var maxImageBytes: Int

    public init(
        title: ClosedRange<Int> = 1...100,
        description: ClosedRange<Int> = 1...1000,
        password: ClosedRange<Int> = 1...100,
        maxImages: Int = 5,
        maxImageBytes: Int = 307_200
    ) {
        self.title = title
        self.description = description
        self.password = password
        self.maxImages = maxImages
        self.maxImageBytes = maxImageBytes
    }
}
