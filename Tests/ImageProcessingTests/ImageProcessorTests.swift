import CVips
import TestPhotos
import Testing
@testable import ImageProcessing

@Suite struct ImageProcessorTests {
    @Test func formatsAreSniffedFromTheirFirstBytes() throws {
        #expect(ImageFormat(sniffing: try TestPhotos.encoded(width: 8, height: 8, saver: Int32(CVIPS_SAVE_JPEG))) == .jpeg)
        #expect(ImageFormat(sniffing: try TestPhotos.encoded(width: 8, height: 8, saver: Int32(CVIPS_SAVE_PNG))) == .png)
        #expect(ImageFormat(sniffing: try TestPhotos.encoded(width: 8, height: 8, saver: Int32(CVIPS_SAVE_WEBP))) == .webp)
        #expect(ImageFormat(sniffing: try TestPhotos.encoded(width: 8, height: 8, saver: Int32(CVIPS_SAVE_AVIF))) == .avif)
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8) + [0, 0]) == .gif)
        #expect(ImageFormat(sniffing: [0, 0, 0, 0x18] + Array("ftypheic".utf8)) == .heif)
        #expect(ImageFormat(sniffing: [0, 0, 0, 0x18] + Array("ftypmp42".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("<svg xmlns=".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("RIFF\0\0\0\0WAVEfmt ".utf8)) == nil)
        #expect(ImageFormat(sniffing: [0x89, 0x50]) == nil)
        #expect(ImageFormat(sniffing: [UInt8]()) == nil)
    }

    /// Orientation 6 (turn 90° clockwise to show): 400 × 300 stored is 300 × 400 shown; at
    /// w=150 it is 150 × 200, the stored left half (red) on top, and every piece of metadata
    /// (EXIF with GPS, XMP) is gone.
    @Test(arguments: [ImageFormat.jpeg, .webp, .avif, .png])
    func phonePhotosAreTurnedResizedAndStripped(_ format: ImageFormat) throws {
        let source = try TestPhotos.phoneJPEG(width: 400, height: 300, orientation: 6)
        #expect(source.contains(TestPhotos.secret))
        #expect(try ImageProcessor.probe(source) == (.jpeg, 300, 400))
        let rendered = try ImageProcessor.render(source, RenderOptions(width: 150, format: format))
        #expect(rendered.format == format)
        #expect((rendered.width, rendered.height) == (150, 200))
        #expect(ImageFormat(sniffing: rendered.bytes) == format)
        let leaks = [TestPhotos.secret, Array("Exif".utf8), Array("http://ns.adobe.com/xap".utf8), Array("ICCP".utf8), Array("lcms".utf8)]
            .filter { rendered.bytes.contains($0) }.map { String(decoding: $0, as: UTF8.self) }
        #expect(leaks == [])
        let loader = format == .avif ? Int32(CVIPS_HEIF) : format == .webp ? Int32(CVIPS_WEBP) : format == .png ? Int32(CVIPS_PNG) : Int32(CVIPS_JPEG)
        let decoded = try TestPhotos.decode(rendered.bytes, loader: loader)
        #expect((decoded.width, decoded.height) == (150, 200))
        func pixel(_ x: Int, _ y: Int) -> [UInt8] {
            let offset = (y * decoded.width + x) * decoded.bands
            return Array(decoded.pixels[offset..<offset + 3])
        }
        // Red on top, blue below (lossy formats: roughly).
        #expect(pixel(75, 20)[0] > 150 && pixel(75, 20)[2] < 60, "\(pixel(75, 20))")
        #expect(pixel(75, 180)[2] > 150 && pixel(75, 180)[0] < 60, "\(pixel(75, 180))")
    }

    /// Never upscaled: a width above the source's, or none, keeps the source's size.
    @Test(arguments: [nil, 640] as [Int?])
    func smallSourcesKeepTheirSize(_ width: Int?) throws {
        let source = try TestPhotos.encoded(width: 320, height: 200, saver: Int32(CVIPS_SAVE_PNG))
        let rendered = try ImageProcessor.render(source, RenderOptions(width: width, format: .webp))
        #expect((rendered.width, rendered.height) == (320, 200))
    }

    /// Aspect ratio kept, rounded: 1000 × 333 at 160 is 160 × 53.
    @Test func aspectRatioIsKept() throws {
        let source = try TestPhotos.encoded(width: 1000, height: 333, saver: Int32(CVIPS_SAVE_JPEG))
        let rendered = try ImageProcessor.render(source, RenderOptions(width: 160, format: .jpeg))
        #expect((rendered.width, rendered.height) == (160, 53))
        #expect(ImageFormat(sniffing: rendered.bytes) == .jpeg)
    }

    @Test func pngTextChunksAreStripped() throws {
        let source = try TestPhotos.pngWithText(width: 64, height: 48)
        #expect(source.contains(TestPhotos.secret))
        #expect(try ImageProcessor.probe(source) == (.png, 64, 48))
        let rendered = try ImageProcessor.render(source, RenderOptions(width: nil, format: .png))
        #expect((rendered.width, rendered.height) == (64, 48))
        let leaked = rendered.bytes.contains(TestPhotos.secret)
        #expect(!leaked)
    }

    /// A PNG whose header claims 20000 × 20000 is refused from its header: no pixel decoded.
    @Test func decompressionBombsAreRefusedFromTheirHeader() throws {
        let bomb = TestPhotos.pngBomb(width: 20_000, height: 20_000)
        #expect(bomb.count < 200)
        #expect(throws: ImageProcessingError.tooManyPixels(width: 20_000, height: 20_000, limit: 40_000_000)) {
            try ImageProcessor.render(bomb, RenderOptions(width: 320, format: .webp))
        }
        // Within the limit, the same shape is decoded, and fails on its missing rows.
        let small = TestPhotos.pngBomb(width: 64, height: 64)
        #expect(throws: (any Error).self) { try ImageProcessor.render(small, RenderOptions(width: 32, format: .webp, maxPixels: 10_000)) }
        #expect(throws: ImageProcessingError.tooManyPixels(width: 64, height: 64, limit: 4_000)) {
            try ImageProcessor.render(small, RenderOptions(width: 32, format: .webp, maxPixels: 4_000))
        }
    }

    @Test func whatIsNotAnImageIsRefused() {
        #expect(throws: ImageProcessingError.notAnImage) { try ImageProcessor.render(Array("<svg/>".utf8), RenderOptions(width: 32, format: .png)) }
        // A JPEG cut after its header: libvips' own error.
        let cut = [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10] + Array("JFIF".utf8)
        #expect {
            try ImageProcessor.render(cut, RenderOptions(width: 32, format: .png))
        } throws: { error in
            guard case .failed(let message) = error as? ImageProcessingError else { return false }
            return !message.isEmpty
        }
        #expect(throws: ImageProcessingError.failed("HEIF is read, never written")) {
            try ImageProcessor.render(Array("GIF89a".utf8), RenderOptions(width: 32, format: .heif))
        }
    }

    /// A render past its time limit is stopped.
    @Test func theTimeLimitStopsARender() throws {
        let source = try TestPhotos.encoded(width: 2000, height: 1500, saver: Int32(CVIPS_SAVE_PNG))
        #expect(throws: ImageProcessingError.timedOut) {
            try ImageProcessor.render(source, RenderOptions(width: 1280, format: .avif, timeLimit: .zero, avifSpeed: 0))
        }
        // The same render with time to spare works.
        let rendered = try ImageProcessor.render(source, RenderOptions(width: 160, format: .webp))
        #expect(rendered.width == 160)
    }
}

extension ImageProcessorTests {
    /// Renders on many threads at once (as the gateway's workers do) all succeed, each with
    /// its own result.
    @Test func concurrentRendersAllSucceed() async throws {
        let sources = try (0..<4).map { index in try TestPhotos.encoded(width: 200 + 40 * index, height: 150, saver: Int32(CVIPS_SAVE_JPEG)) }
        let results = await withTaskGroup(of: (Int, Result<RenderedImage, ImageProcessingError>).self) { group in
            for index in 0..<16 {
                group.addTask {
                    let format: ImageFormat = [.avif, .webp, .jpeg, .png][index % 4]
                    let source = sources[index % 4]
                    return (index, Result { () throws(ImageProcessingError) in try ImageProcessor.render(source, RenderOptions(width: 80, format: format)) })
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        for index in 0..<16 {
            let rendered = try #require(try? results[index]?.get(), "\(index): \(String(describing: results[index]))")
            #expect(rendered.width == 80)
            #expect(rendered.format == [.avif, .webp, .jpeg, .png][index % 4])
        }
    }
}
