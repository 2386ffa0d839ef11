import CVips
import Foundation

/// Renders images with libvips: decode (by the named loader of the sniffed format, with
/// shrink-on-load), apply the EXIF orientation, resize, convert to sRGB, strip every piece of
/// metadata, encode.
///
/// Synchronous and CPU-heavy: call it on a worker thread, never on an event loop. Any number
/// of threads may render at once (each render is single-threaded). libvips is started on first
/// use (``start()``); a thread that rendered should call ``threadDone()`` before it ends.
public enum ImageProcessor {
    /// Starts libvips once; throws ``ImageProcessingError/unavailable(_:)`` when it cannot.
    public static func start() throws(ImageProcessingError) {
        if let failure = started { throw failure }
    }

    private static let started: ImageProcessingError? = {
        guard cvips_start() == 0 else { return .unavailable(takeError()) }
        return nil
    }()

    /// Frees this thread's libvips state.
    public static func threadDone() {
        cvips_thread_done()
    }

    /// The format and displayed size (orientation applied) of `source`, from its header only.
    public static func probe(_ source: [UInt8]) throws(ImageProcessingError) -> (format: ImageFormat, width: Int, height: Int) {
        try start()
        guard let format = ImageFormat(sniffing: source) else { throw .notAnImage }
        return try source.withUnsafeBytes { buffer in
            Result { () throws(ImageProcessingError) in
                let image = try load(buffer, format, shrink: 1, scale: 1)
                defer { cvips_unref(image) }
                let (width, height) = displayed(image)
                return (format, width, height)
            }
        }.get()
    }

    /// Renders `source` as `options` ask.
    /// - Throws: ``ImageProcessingError``: not an image, too many pixels, too slow, or refused
    ///   by libvips.
    public static func render(_ source: [UInt8], _ options: RenderOptions) throws(ImageProcessingError) -> RenderedImage {
        try start()
        guard let format = ImageFormat(sniffing: source) else { throw .notAnImage }
        guard options.format != .heif else { throw .failed("HEIF is read, never written") }
        return try source.withUnsafeBytes { buffer in
            Result { () throws(ImageProcessingError) in try render(buffer, format, options) }
        }.get()
    }

    private static func render(_ buffer: UnsafeRawBufferPointer, _ format: ImageFormat, _ options: RenderOptions) throws(ImageProcessingError)
        -> RenderedImage
    {
        // Lives until the render returns: libvips reads it while it computes.
        let deadline = UnsafeMutablePointer<cvips_deadline>.allocate(capacity: 1)
        defer { deadline.deallocate() }
        deadline.initialize(to: cvips_deadline(deadline: g_get_monotonic_time() + Int(options.timeLimit / .microseconds(1)), fired: 0))
        let (shown, _) = try displayedSize(buffer, format, maxPixels: options.maxPixels)
        let target = min(options.width ?? shown, shown)
        let (shrink, scale) = shrinkOnLoad(format, factor: Double(shown) / Double(max(1, target)))
        let source = try load(buffer, format, shrink: shrink, scale: scale)
        defer { cvips_unref(source) }
        cvips_set_deadline(source, deadline)
        var resized: UnsafeMutablePointer<VipsImage>?
        guard cvips_thumbnail(source, Int32(target), &resized) == 0, let resized else { throw failure(deadline) }
        defer { cvips_unref(resized) }
        var flattened: UnsafeMutablePointer<VipsImage>?
        if options.format == .jpeg {
            guard cvips_flatten(resized, &flattened) == 0, flattened != nil else { throw failure(deadline) }
        }
        defer { flattened.map(cvips_unref) }
        var stripped: UnsafeMutablePointer<VipsImage>?
        guard cvips_strip(flattened ?? resized, &stripped) == 0, let ready = stripped else { throw failure(deadline) }
        defer { cvips_unref(ready) }
        let quality = Int32(options.quality ?? RenderOptions.defaultQuality(options.format))
        let effort = Int32(9 - min(9, max(0, options.avifSpeed)))
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        guard cvips_save(ready, saver(options.format), quality, effort, &bytes, &length) == 0, let bytes else {
            throw failure(deadline)
        }
        defer { cvips_free(bytes) }
        var encoded = Array(UnsafeRawBufferPointer(start: bytes, count: length))
        if options.format == .webp {
            var stripped: UnsafeMutablePointer<UInt8>?
            var strippedLength = 0
            guard cvips_webp_strip(bytes, length, &stripped, &strippedLength) == 0, let stripped else {
                throw .failed("libwebpmux could not read the WebP libvips wrote")
            }
            defer { cvips_webp_free(stripped) }
            encoded = Array(UnsafeBufferPointer(start: stripped, count: strippedLength))
        }
        return RenderedImage(bytes: encoded, format: options.format, width: Int(cvips_width(ready)), height: Int(cvips_height(ready)))
    }

    /// A source's displayed size, and a preview of it fitted within `side`×`side` pixels (never
    /// enlarged), as 8-bit sRGB RGBA with straight alpha: what a placeholder is computed from.
    /// Decoded with shrink-on-load (a JPEG of 3000×2000 at an eighth), so it costs a fraction
    /// of a render.
    /// - Throws: ``ImageProcessingError``: not an image, more pixels than `maxPixels` by its
    ///   header, slower than `timeLimit` (stopped, or refused when done late), or refused by
    ///   libvips.
    public static func preview(_ source: [UInt8], side: Int = 100, maxPixels: Int, timeLimit: Duration) throws(ImageProcessingError)
        -> ImagePreview
    {
        try start()
        guard let format = ImageFormat(sniffing: source) else { throw .notAnImage }
        return try source.withUnsafeBytes { buffer in
            Result { () throws(ImageProcessingError) in
                // Lives until the preview returns: libvips reads it while it computes.
                let deadline = UnsafeMutablePointer<cvips_deadline>.allocate(capacity: 1)
                defer { deadline.deallocate() }
                deadline.initialize(to: cvips_deadline(deadline: g_get_monotonic_time() + Int(timeLimit / .microseconds(1)), fired: 0))
                let (shownWidth, shownHeight) = try displayedSize(buffer, format, maxPixels: maxPixels)
                // A blurred placeholder needs no headroom for the resize: JPEG's largest shrink
                // that stays at least `side` pixels (WebP's scale to exactly that).
                let factor = Double(max(shownWidth, shownHeight)) / Double(max(1, side))
                let shrink: Int32 = format == .jpeg ? (factor >= 8 ? 8 : factor >= 4 ? 4 : factor >= 2 ? 2 : 1) : 1
                let scale = format == .webp && factor > 1 ? 1 / factor : 1
                let image = try load(buffer, format, shrink: shrink, scale: scale)
                defer { cvips_unref(image) }
                var pixels: UnsafeMutableRawPointer?
                var length = 0
                var previewWidth: Int32 = 0
                var previewHeight: Int32 = 0
                guard cvips_rgba_preview(image, Int32(side), deadline, &pixels, &length, &previewWidth, &previewHeight) == 0, let pixels else {
                    throw failure(deadline)
                }
                defer { cvips_free(pixels) }
                // libvips signals progress per output region, and a preview is one or two:
                // a slow decode is seen only once it is done. Late is refused all the same.
                guard g_get_monotonic_time() <= deadline.pointee.deadline else { throw .timedOut }
                guard length == Int(previewWidth) * Int(previewHeight) * 4 else {
                    throw .failed("a preview of \(length) bytes for \(previewWidth)×\(previewHeight) pixels")
                }
                return ImagePreview(
                    sourceWidth: shownWidth, sourceHeight: shownHeight, width: Int(previewWidth), height: Int(previewHeight),
                    rgba: Array(UnsafeRawBufferPointer(start: pixels, count: length)))
            }
        }.get()
    }

    /// The displayed size (orientation applied) of the image in `buffer`, from its header; the
    /// image is refused undecoded when it has more than `maxPixels` pixels.
    private static func displayedSize(_ buffer: UnsafeRawBufferPointer, _ format: ImageFormat, maxPixels: Int) throws(ImageProcessingError)
        -> (width: Int, height: Int)
    {
        let header = try load(buffer, format, shrink: 1, scale: 1)
        defer { cvips_unref(header) }
        let width = Int(cvips_width(header))
        let height = Int(cvips_height(header))
        guard width.multipliedReportingOverflow(by: height).partialValue <= maxPixels, width <= maxPixels, height <= maxPixels
        else { throw .tooManyPixels(width: width, height: height, limit: maxPixels) }
        return displayed(header)
    }

    /// Shrink-on-load for a resize by `factor`, leaving the resize at least a factor of two to
    /// work with (as libvips' own thumbnail does), so quality is the same as decoding at full
    /// size: JPEG's shrink (1, 2, 4 or 8) and WebP's scale.
    private static func shrinkOnLoad(_ format: ImageFormat, factor: Double) -> (shrink: Int32, scale: Double) {
        let shrink: Int32 = format == .jpeg ? (factor >= 16 ? 8 : factor >= 8 ? 4 : factor >= 4 ? 2 : 1) : 1
        return (shrink, format == .webp && factor >= 4 ? 2 / factor : 1)
    }

    private static func load(_ buffer: UnsafeRawBufferPointer, _ format: ImageFormat, shrink: Int32, scale: Double) throws(ImageProcessingError)
        -> UnsafeMutablePointer<VipsImage>
    {
        let loader: Int32 =
            switch format {
            case .jpeg: Int32(CVIPS_JPEG)
            case .png: Int32(CVIPS_PNG)
            case .webp: Int32(CVIPS_WEBP)
            case .gif: Int32(CVIPS_GIF)
            case .avif, .heif: Int32(CVIPS_HEIF)
            }
        var image: UnsafeMutablePointer<VipsImage>?
        guard cvips_load(buffer.baseAddress, buffer.count, loader, shrink, scale, &image) == 0, let image else {
            throw .failed(takeError())
        }
        return image
    }

    static func saver(_ format: ImageFormat) -> Int32 {
        switch format {
        case .jpeg, .heif: Int32(CVIPS_SAVE_JPEG)
        case .png: Int32(CVIPS_SAVE_PNG)
        case .webp: Int32(CVIPS_SAVE_WEBP)
        case .gif: Int32(CVIPS_SAVE_GIF)
        case .avif: Int32(CVIPS_SAVE_AVIF)
        }
    }

    /// Width and height as shown, after the EXIF orientation.
    private static func displayed(_ image: UnsafeMutablePointer<VipsImage>) -> (Int, Int) {
        let width = Int(cvips_width(image))
        let height = Int(cvips_height(image))
        return cvips_orientation_swaps(image) != 0 ? (height, width) : (width, height)
    }

    /// The failure of a step: the time limit when it stopped libvips, else libvips' message.
    private static func failure(_ deadline: UnsafeMutablePointer<cvips_deadline>) -> ImageProcessingError {
        let message = takeError()
        return cvips_deadline_fired(deadline) != 0 ? .timedOut : .failed(message)
    }

    /// libvips' error text, cleared.
    static func takeError() -> String {
        guard let text = cvips_error() else { return "unknown error" }
        defer { cvips_free(text) }
        let message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
        return message.isEmpty ? "unknown error" : message
    }
}
