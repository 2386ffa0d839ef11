import CZlib

/// A zlib inflate stream that accepts gzip or zlib framing (windowBits 15 + 32).
///
/// Heap-allocated `z_stream` for the same reason as `Deflater`. Not thread-safe.
final class Inflater {
    private let stream: UnsafeMutablePointer<z_stream>

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = czlib_inflate_init2(stream, 15 + 32)
        precondition(status == Z_OK, "inflateInit2 failed: \(status)")
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The bytes `input` encodes.
    ///
    /// - Throws: `GzipError.tooLarge` once the output would pass `maxBytes` (a bound
    ///   against compression bombs), `.corrupt` for bytes that are not a valid stream or
    ///   that trail it, `.truncated` when the input ends before the stream does.
    func inflate(_ input: [UInt8], maxBytes: Int) throws(GzipError) -> [UInt8] {
        inflateReset(stream)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let result: Int32 = input.withUnsafeBufferPointer { source in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.pointee.avail_in = uInt(source.count)
            defer { stream.pointee.next_in = nil }
            while true {
                let status: Int32 = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = uInt(buffer.count)
                    defer { stream.pointee.next_out = nil }
                    return CZlib.inflate(stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.pointee.avail_out)
                if output.count + produced > maxBytes { return Z_MEM_ERROR }
                output.append(contentsOf: chunk[0..<produced])
                switch status {
                case Z_STREAM_END:
                    return stream.pointee.avail_in == 0 ? Z_STREAM_END : Z_DATA_ERROR
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // No progress possible: the input ended inside the stream.
                    return Z_BUF_ERROR
                default:
                    return Z_DATA_ERROR
                }
            }
        }
        switch result {
        case Z_STREAM_END: return output
        case Z_MEM_ERROR: throw .tooLarge(limit: maxBytes)
        case Z_BUF_ERROR: throw .truncated
        default: throw .corrupt
        }
    }
}
