import GatewayModels
import ImageProcessing

/// Makes uploaded images fit the origin (``UploadImagePreparer``): every upload is rendered
/// again, so none reaches the origin with its metadata (EXIF with GPS, XMP, ICC), turned
/// upright, in sRGB; HEIC (what iPhones shoot), WebP, AVIF and GIF become JPEG (a GIF's
/// first frame: PNG), PNG stays PNG, JPEG stays JPEG.
///
/// When the result is larger than `maxBytes` (the origin's limit: the v2 origin refuses
/// images over 300 KB), it is made smaller until it fits: a JPEG in quality steps at full
/// size, then in size steps (three quarters of the width each time, quality 75); a PNG in
/// size steps. Only an image that still does not fit at ``minimumWidth`` pixels wide, or is
/// not an image, is refused. The render time limit holds for all the attempts of one image
/// together, not for each.
///
/// Synchronous and CPU-heavy: runs on an image worker (``ImageWorkers``), never on a loop.
struct UploadFitter: UploadImagePreparer {
    /// The origin's limit per image.
    let maxBytes: Int
    /// The largest upload read (bytes), and the largest source (pixels, from its header).
    let maxSourceBytes: Int
    let options: RenderOptions
    static let minimumWidth = 160
    static let qualitySteps = [88, 80, 72, 64, 56, 48]

    init(maxBytes: Int, maxSourceBytes: Int, maxPixels: Int, timeLimit: Duration) {
        self.maxBytes = maxBytes
        self.maxSourceBytes = maxSourceBytes
        options = RenderOptions(width: nil, format: .jpeg, maxPixels: maxPixels, timeLimit: timeLimit)
    }

    func check(_ data: [UInt8]) -> UploadImageRefusal? {
        guard case .failure(let refusal) = format(of: data) else { return nil }
        return refusal
    }

    /// The cheap checks: the size, and the format by the first bytes.
    private func format(of data: [UInt8]) -> Result<ImageFormat, UploadImageRefusal> {
        guard data.count <= maxSourceBytes else {
            return .failure(UploadImageRefusal("is \(data.count) bytes; the limit is \(maxSourceBytes) bytes."))
        }
        guard let format = ImageFormat(sniffing: data) else {
            return .failure(UploadImageRefusal("must be a JPEG, PNG, HEIC, WebP, AVIF or GIF image (judged by its content, not its declared type)."))
        }
        return .success(format)
    }

    func prepare(_ data: [UInt8]) -> Result<PreparedImage, UploadImageRefusal> {
        let source: ImageFormat
        switch format(of: data) {
        case .success(let format): source = format
        case .failure(let refusal): return .failure(refusal)
        }
        let kind: ImageKind = source == .png || source == .gif ? .png : .jpeg
        let deadline = ContinuousClock.now + options.timeLimit
        do throws(ImageProcessingError) {
            let (_, width, _) = try ImageProcessor.probe(data)
            var attempt = options
            attempt.format = kind == .png ? .png : .jpeg
            /// One attempt within what is left of the time limit.
            func render() throws(ImageProcessingError) -> [UInt8] {
                attempt.timeLimit = deadline - ContinuousClock.now
                guard attempt.timeLimit > .zero else { throw .timedOut }
                return try ImageProcessor.render(data, attempt).bytes
            }
            // Quality steps at full size (JPEG), then size steps.
            for quality in kind == .jpeg ? Self.qualitySteps : [0] {
                attempt.quality = kind == .jpeg ? quality : nil
                let bytes = try render()
                if bytes.count <= maxBytes { return .success(PreparedImage(kind: kind, data: bytes)) }
            }
            attempt.quality = kind == .jpeg ? 75 : nil
            var next = width * 3 / 4
            while next >= Self.minimumWidth {
                attempt.width = next
                let bytes = try render()
                if bytes.count <= maxBytes { return .success(PreparedImage(kind: kind, data: bytes)) }
                next = next * 3 / 4
            }
            return .failure(UploadImageRefusal("cannot be made to fit the origin's limit of \(maxBytes) bytes."))
        } catch {
            switch error {
            case .tooManyPixels(let width, let height, let limit):
                return .failure(UploadImageRefusal("is \(width) × \(height) pixels; the limit is \(limit) pixels."))
            case .timedOut:
                return .failure(UploadImageRefusal("took too long to process."))
            case .notAnImage, .failed, .unavailable:
                return .failure(UploadImageRefusal("could not be read as an image."))
            }
        }
    }
}
