import CVips
import TestPhotos
import Testing
@testable import ImageProcessing

/// Previews (what placeholders are computed from): the size as shown, at most 100 pixels on the
/// longer side, 8-bit sRGB RGBA with straight alpha.
@Suite struct ImagePreviewTests {
    /// The pixel at (`x`, `y`) of `preview`.
    static func pixel(_ preview: ImagePreview, _ x: Int, _ y: Int) -> [UInt8] {
        let offset = (y * preview.width + x) * 4
        return Array(preview.rgba[offset..<(offset + 4)])
    }

    /// Orientation 6: 400 × 300 stored is 300 × 400 shown, a preview of 75 × 100 with the stored
    /// left half (red) on top.
    @Test func phonePhotosAreSizedAndTurnedAsShown() throws {
        let source = try TestPhotos.phoneJPEG(width: 400, height: 300, orientation: 6)
        let preview = try ImageProcessor.preview(source, maxPixels: 40_000_000, timeLimit: .seconds(5))
        #expect((preview.sourceWidth, preview.sourceHeight) == (300, 400))
        #expect((preview.width, preview.height) == (75, 100))
        #expect(preview.rgba.count == 75 * 100 * 4)
        let top = Self.pixel(preview, 37, 5)
        let bottom = Self.pixel(preview, 37, 94)
        #expect(top[0] > 180 && top[2] < 40 && top[3] == 255, "\(top)")
        #expect(bottom[2] > 180 && bottom[0] < 40 && bottom[3] == 255, "\(bottom)")
    }

    /// A PNG with alpha smaller than 100 pixels keeps its size and its pixels exactly, alpha
    /// straight (not premultiplied): transparent red stays red.
    @Test func smallPNGsWithAlphaKeepTheirPixels() throws {
        var rgba: [UInt8] = []
        for _ in 0..<20 {
            for x in 0..<50 { rgba += x < 25 ? [200, 10, 10, 0] : [10, 200, 30, 128] }
        }
        let source = try TestPhotos.encoded(width: 50, height: 20, bands: 4, saver: Int32(CVIPS_SAVE_PNG), pixels: rgba)
        let preview = try ImageProcessor.preview(source, maxPixels: 40_000_000, timeLimit: .seconds(5))
        #expect((preview.sourceWidth, preview.sourceHeight, preview.width, preview.height) == (50, 20, 50, 20))
        #expect(preview.rgba == rgba)
    }

    /// Grey without alpha becomes R = G = B with alpha 255; a GIF gives its first frame, fitted.
    @Test func greyAndGIFBecomeRGBA() throws {
        let grey = try TestPhotos.encoded(width: 30, height: 10, bands: 1, saver: Int32(CVIPS_SAVE_PNG), pixels: [UInt8](repeating: 77, count: 300))
        let greyPreview = try ImageProcessor.preview(grey, maxPixels: 40_000_000, timeLimit: .seconds(5))
        #expect((greyPreview.width, greyPreview.height) == (30, 10))
        #expect(Self.pixel(greyPreview, 3, 3) == [77, 77, 77, 255])
        let gif = try TestPhotos.encoded(width: 240, height: 120, saver: Int32(CVIPS_SAVE_GIF))
        let gifPreview = try ImageProcessor.preview(gif, maxPixels: 40_000_000, timeLimit: .seconds(5))
        #expect((gifPreview.sourceWidth, gifPreview.sourceHeight, gifPreview.width, gifPreview.height) == (240, 120, 100, 50))
    }

    /// A large JPEG is decoded at an eighth (shrink-on-load), then fitted.
    @Test func largeSourcesAreFitted() throws {
        let source = try TestPhotos.encoded(width: 3000, height: 2000, saver: Int32(CVIPS_SAVE_JPEG))
        let preview = try ImageProcessor.preview(source, maxPixels: 40_000_000, timeLimit: .seconds(5))
        #expect((preview.sourceWidth, preview.sourceHeight, preview.width, preview.height) == (3000, 2000, 100, 67))
    }

    @Test func limitsAndNonImagesAreRefused() throws {
        #expect(throws: ImageProcessingError.tooManyPixels(width: 20_000, height: 20_000, limit: 40_000_000)) {
            _ = try ImageProcessor.preview(TestPhotos.pngBomb(width: 20_000, height: 20_000), maxPixels: 40_000_000, timeLimit: .seconds(5))
        }
        #expect(throws: ImageProcessingError.notAnImage) {
            _ = try ImageProcessor.preview(Array("<svg/>".utf8), maxPixels: 40_000_000, timeLimit: .seconds(5))
        }
        let source = try TestPhotos.encoded(width: 2000, height: 1500, saver: Int32(CVIPS_SAVE_PNG))
        #expect(throws: ImageProcessingError.timedOut) {
            _ = try ImageProcessor.preview(source, maxPixels: 40_000_000, timeLimit: .zero)
        }
    }
}
