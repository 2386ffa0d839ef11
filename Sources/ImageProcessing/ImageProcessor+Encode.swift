import CVips

extension ImageProcessor {
    /// Encodes 8-bit pixels as `format` (JPEG, PNG, GIF or WebP), without metadata: images
    /// made from scratch (the demo origin's catalogue pictures). `pixels` holds `width` ×
    /// `height` pixels of `bands` bytes each, row by row: 3 (RGB) or 4 (RGBA, straight alpha;
    /// a JPEG drops the alpha).
    ///
    /// Synchronous and CPU-heavy (tens of milliseconds for a few megapixels): not on a loop.
    /// - Throws: ``ImageProcessingError/unavailable(_:)`` when libvips cannot start,
    ///   ``ImageProcessingError/failed(_:)`` for pixels that do not match the size or an
    ///   encoder libvips refuses.
    public static func encode(pixels: [UInt8], width: Int, height: Int, bands: Int, format: ImageFormat, quality: Int = 85)
        throws(ImageProcessingError) -> [UInt8]
    {
        try start()
        guard width > 0, height > 0, bands == 3 || bands == 4, pixels.count == width * height * bands,
            [.jpeg, .png, .gif, .webp].contains(format)
        else { throw .failed("\(width)×\(height)×\(bands) pixels in \(pixels.count) bytes cannot be encoded as \(format)") }
        guard let image = pixels.withUnsafeBytes({
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }) else { throw .failed(takeError()) }
        defer { cvips_unref(image) }
        var flattened: UnsafeMutablePointer<VipsImage>?
        if format == .jpeg, bands == 4 {
            guard cvips_flatten(image, &flattened) == 0, flattened != nil else { throw .failed(takeError()) }
        }
        defer { flattened.map(cvips_unref) }
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        guard cvips_save(flattened ?? image, saver(format), Int32(quality), 4, &bytes, &length) == 0, let bytes else {
            throw .failed(takeError())
        }
        defer { cvips_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }
}
