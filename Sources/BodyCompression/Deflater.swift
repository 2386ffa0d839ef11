import CZlib

/// A zlib deflate stream producing gzip members (windowBits 15 + 16, memLevel 8).
///
/// The `z_stream` is heap-allocated and never moves: zlib keeps a pointer back to it and
/// checks it on every call, so it must not live inline in a Swift value that can be moved.
/// Not thread-safe: one thread uses an instance at a time (see `Gzip`'s pool).
final class Deflater: @unchecked Sendable {
    let level: Int32
    private let stream: UnsafeMutablePointer<z_stream>

    init(level: Int32) {
        self.level = level
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = czlib_deflate_init2(stream, level, 15 + 16, 8)
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// One complete gzip member holding `input`.
    func gzip(_ input: [UInt8]) -> [UInt8] {
        precondition(input.count < Int(UInt32.max), "gzip input over 4 GiB")
        deflateReset(stream)
        let capacity = Int(deflateBound(stream, uLong(input.count))) + 32
        return [UInt8](unsafeUninitializedCapacity: capacity) { output, written in
            input.withUnsafeBufferPointer { source in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.pointee.avail_in = uInt(source.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = uInt(capacity)
                let status = deflate(stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate did not finish within deflateBound: \(status)")
                written = capacity - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
        }
    }
}
