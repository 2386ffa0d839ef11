import GatewayModels
import Testing
import GatewaySupport

@Suite struct ImageAcceptTests {
    static let both: Set<ImageAccept.Choice> = [.avif, .webp]

    @Test(arguments: [
        ("image/avif,image/webp,image/apng,image/*,*/*;q=0.8", ImageAccept.Choice.avif),  // Chrome
        ("image/webp,*/*", .webp),
        ("IMAGE/WEBP", .webp),
        ("image/webp;q=0.9, image/avif;q=0.5", .webp),
        ("image/avif;q=0.5, image/webp;q=0.5", .avif),
        ("image/avif;q=0, image/webp", .webp),
        ("image/avif;q=x, image/webp;q=0", .original),
        ("image/*", .original),
        ("*/*", .original),
        ("image/png,image/jpeg", .original),
        ("", .original),
        ("image/avif ; q=1 , image/webp", .avif),
    ])
    func choosesTheNewestNamedFormat(header: String, expected: ImageAccept.Choice) {
        #expect(ImageAccept.choose(header, offered: Self.both) == expected)
    }

    @Test func noHeaderMeansTheSourceFormat() {
        #expect(ImageAccept.choose(nil, offered: Self.both) == .original)
    }

    /// What the operator does not offer is never chosen.
    @Test func onlyOfferedFormatsAreChosen() {
        #expect(ImageAccept.choose("image/avif,image/webp", offered: [.webp]) == .webp)
        #expect(ImageAccept.choose("image/avif", offered: [.webp]) == .original)
        #expect(ImageAccept.choose("image/avif,image/webp", offered: []) == .original)
    }
}
