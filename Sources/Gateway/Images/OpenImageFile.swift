import Glibc
import HTTPInterface

/// A disk-tier image whose file is open and whose checksum was verified once, when the file
/// entered the tier (written, or first read after a restart): hits send its body straight
/// from the descriptor (`sendfile`), without reading it into memory and without hashing it
/// again.
///
/// The descriptor is read-only and closed when the last holder lets go (the disk tier drops
/// its reference when the file is evicted; a connection holds one while it sends). Files are
/// never rewritten in place (a new version is a new file, renamed over the old name), so an
/// open descriptor always reads the verified bytes.
public final class OpenImageFile: FileBody {
    public let descriptor: Int32
    /// Where the body starts in the file, and its length.
    public let bodyOffset: Int
    public let bodyLength: Int
    /// The image's metadata and heads (its `identity` is empty: the body stays on disk).
    let image: CachedPage
    /// The file's name in the disk tier (for recency on hits).
    let name: String

    /// Opens `path` for reading; nil when it cannot be opened.
    init?(path: String, name: String, bodyOffset: Int, bodyLength: Int, image: CachedPage) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.name = name
        self.bodyOffset = bodyOffset
        self.bodyLength = bodyLength
        self.image = image
    }

    deinit { close(descriptor) }

    /// The whole body, read with `pread` (the descriptor's offset is never used). Blocks on
    /// the disk: call it on the disk queue only. Nil when the file is shorter than it should be.
    func readBody() -> [UInt8]? {
        var body = [UInt8](repeating: 0, count: bodyLength)
        var done = 0
        while done < bodyLength {
            let count = body.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, bodyLength - done, off_t(bodyOffset + done)) }
            guard count > 0 else { return nil }
            done += count
        }
        return body
    }
}
