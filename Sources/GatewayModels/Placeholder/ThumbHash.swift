import Foundation

/// ThumbHash (https://evanw.github.io/thumbhash/): an image of at most 100×100 pixels as about
/// 25 bytes that decode to a blurred preview with its colours, aspect ratio and alpha.
///
/// The format is defined by its reference implementation, so the arithmetic here follows it
/// step for step: the same sums in the same order, and rounding as JavaScript's `Math.round`
/// (half up), so hashes match the reference's bit for bit away from ties. Pure functions;
/// CPU-heavy for their size (about 55 cosine transforms over the pixels): call them off the
/// event loops.
public enum ThumbHash {
    /// Why an image or a hash was refused.
    public enum Failure: Error, Equatable, Sendable {
        /// Wider or taller than 100 pixels, or empty.
        case unsupportedSize(width: Int, height: Int)
        /// `rgba` does not hold `width × height × 4` bytes.
        case wrongByteCount(expected: Int, actual: Int)
        /// Too short for its header or for the factors its header announces.
        case malformedHash
    }

    /// The largest side an image may have.
    public static let maxSide = 100

    // MARK: - Encoding

    /// The hash of an image: `rgba` holds `width × height` pixels row by row, 4 bytes each,
    /// sRGB with straight (not premultiplied) alpha.
    ///
    /// - Throws: `Failure.unsupportedSize` for a side over 100 or under 1,
    ///   `Failure.wrongByteCount` when `rgba` is not `width × height × 4` bytes.
    public static func encode(width: Int, height: Int, rgba: [UInt8]) throws(Failure) -> [UInt8] {
        try encode(width: width, height: height, rgba: rgba, writer: Writer(tolerance: nil)).hash
    }

    /// `encode`'s hash with the values that were halfway between two integers (within
    /// `tolerance`) when rounded: the fields another implementation's arithmetic may round the
    /// other way. Each is `(offset, bits)`: its place in the hash read as a little-endian
    /// number. For tests against other implementations.
    public static func encodeReportingTies(width: Int, height: Int, rgba: [UInt8], tolerance: Double = 1e-3)
        throws(Failure) -> (hash: [UInt8], ties: [Tie])
    {
        let result = try encode(width: width, height: height, rgba: rgba, writer: Writer(tolerance: tolerance))
        return (result.hash, result.writer.ties)
    }

    /// A field of a hash rounded from (nearly) halfway.
    public struct Tie: Equatable, Sendable {
        public let offset: Int
        public let bits: Int
    }

    private static func encode(width w: Int, height h: Int, rgba: [UInt8], writer: Writer) throws(Failure) -> (hash: [UInt8], writer: Writer) {
        var writer = writer
        guard w >= 1, h >= 1, w <= maxSide, h <= maxSide else { throw .unsupportedSize(width: w, height: h) }
        guard rgba.count == w * h * 4 else { throw .wrongByteCount(expected: w * h * 4, actual: rgba.count) }
        let pixels = w * h

        // The average colour, weighted by alpha.
        var averageR = 0.0, averageG = 0.0, averageB = 0.0, averageA = 0.0
        for index in 0..<pixels {
            let alpha = Double(rgba[index * 4 + 3]) / 255
            averageR += alpha / 255 * Double(rgba[index * 4])
            averageG += alpha / 255 * Double(rgba[index * 4 + 1])
            averageB += alpha / 255 * Double(rgba[index * 4 + 2])
            averageA += alpha
        }
        if averageA > 0 {
            averageR /= averageA
            averageG /= averageA
            averageB /= averageA
        }

        let hasAlpha = averageA < Double(pixels)
        let luminanceLimit = hasAlpha ? 5.0 : 7.0
        let longer = Double(max(w, h))
        let lx = max(1, Int(roundHalfUp(luminanceLimit * Double(w) / longer)))
        let ly = max(1, Int(roundHalfUp(luminanceLimit * Double(h) / longer)))

        // LPQA: luminance, yellow-blue, red-green and alpha, each pixel composited over the
        // average colour.
        var l = [Double](repeating: 0, count: pixels)
        var p = [Double](repeating: 0, count: pixels)
        var q = [Double](repeating: 0, count: pixels)
        var a = [Double](repeating: 0, count: pixels)
        for index in 0..<pixels {
            let alpha = Double(rgba[index * 4 + 3]) / 255
            let r = averageR * (1 - alpha) + alpha / 255 * Double(rgba[index * 4])
            let g = averageG * (1 - alpha) + alpha / 255 * Double(rgba[index * 4 + 1])
            let b = averageB * (1 - alpha) + alpha / 255 * Double(rgba[index * 4 + 2])
            l[index] = (r + g + b) / 3
            p[index] = (r + g) / 2 - b
            q[index] = r - g
            a[index] = alpha
        }

        let transform = CosineTransform(width: w, height: h)
        let luminance = transform.encode(l, nx: max(3, lx), ny: max(3, ly))
        let yellowBlue = transform.encode(p, nx: 3, ny: 3)
        let redGreen = transform.encode(q, nx: 3, ny: 3)
        let opacity = hasAlpha ? transform.encode(a, nx: 5, ny: 5) : nil

        let isLandscape = w > h
        let header24 = writer.quantize(63 * luminance.dc, at: 0, bits: 6)
            | writer.quantize(31.5 + 31.5 * yellowBlue.dc, at: 6, bits: 6) << 6
            | writer.quantize(31.5 + 31.5 * redGreen.dc, at: 12, bits: 6) << 12
            | writer.quantize(31 * luminance.scale, at: 18, bits: 5) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx)
            | writer.quantize(63 * yellowBlue.scale, at: 27, bits: 6) << 3
            | writer.quantize(63 * redGreen.scale, at: 33, bits: 6) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16), UInt8(header16 & 255), UInt8(header16 >> 8),
        ]
        if let opacity {
            hash.append(UInt8(writer.quantize(15 * opacity.dc, at: 40, bits: 4) | writer.quantize(15 * opacity.scale, at: 44, bits: 4) << 4))
        }
        // The AC factors, two per byte, low nibble first.
        let factorStart = hash.count * 8
        var nibble = 0
        for channel in [luminance, yellowBlue, redGreen] + (opacity.map { [$0] } ?? []) {
            for factor in channel.ac {
                let value = writer.quantize(15 * factor, at: factorStart + nibble * 4, bits: 4)
                if nibble & 1 == 0 { hash.append(0) }
                hash[hash.count - 1] |= UInt8(value << ((nibble & 1) << 2))
                nibble += 1
            }
        }
        return (hash, writer)
    }

    // MARK: - Decoding

    /// The preview a hash decodes to: at most 32 pixels on its longer side, RGBA row by row,
    /// straight alpha.
    ///
    /// - Throws: `Failure.malformedHash` when the hash is shorter than its header says.
    public static func decode(_ hash: [UInt8]) throws(Failure) -> (width: Int, height: Int, rgba: [UInt8]) {
        let header = try Header(hash)
        var reader = FactorReader(hash: hash, start: header.hasAlpha ? 6 : 5)
        let luminanceAC = try reader.read(nx: header.lx, ny: header.ly, scale: header.luminanceScale)
        // Saturation boosted by 1.25 against quantisation, as the reference decodes.
        let yellowBlueAC = try reader.read(nx: 3, ny: 3, scale: header.yellowBlueScale * 1.25)
        let redGreenAC = try reader.read(nx: 3, ny: 3, scale: header.redGreenScale * 1.25)
        let opacityAC = header.hasAlpha ? try reader.read(nx: 5, ny: 5, scale: header.opacityScale) : []

        let ratio = aspectRatio(of: hash)
        let w = Int(roundHalfUp(ratio > 1 ? 32 : 32 * ratio))
        let h = Int(roundHalfUp(ratio > 1 ? 32 / ratio : 32))
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        let columns = max(header.lx, header.hasAlpha ? 5 : 3)
        let rows = max(header.ly, header.hasAlpha ? 5 : 3)
        var fx = [Double](repeating: 0, count: columns)
        var fy = [Double](repeating: 0, count: rows)
        var index = 0
        for y in 0..<h {
            for x in 0..<w {
                var l = header.luminanceDC, p = header.yellowBlueDC, q = header.redGreenDC, a = header.opacityDC
                for cx in 0..<columns { fx[cx] = cos(Double.pi / Double(w) * (Double(x) + 0.5) * Double(cx)) }
                for cy in 0..<rows { fy[cy] = cos(Double.pi / Double(h) * (Double(y) + 0.5) * Double(cy)) }
                var j = 0
                for cy in 0..<header.ly {
                    let fy2 = fy[cy] * 2
                    var cx = cy > 0 ? 0 : 1
                    while cx * header.ly < header.lx * (header.ly - cy) {
                        l += luminanceAC[j] * fx[cx] * fy2
                        cx += 1
                        j += 1
                    }
                }
                j = 0
                for cy in 0..<3 {
                    let fy2 = fy[cy] * 2
                    var cx = cy > 0 ? 0 : 1
                    while cx < 3 - cy {
                        let f = fx[cx] * fy2
                        p += yellowBlueAC[j] * f
                        q += redGreenAC[j] * f
                        cx += 1
                        j += 1
                    }
                }
                if header.hasAlpha {
                    j = 0
                    for cy in 0..<5 {
                        let fy2 = fy[cy] * 2
                        var cx = cy > 0 ? 0 : 1
                        while cx < 5 - cy {
                            a += opacityAC[j] * fx[cx] * fy2
                            cx += 1
                            j += 1
                        }
                    }
                }
                let b = l - 2 / 3 * p
                let r = (3 * l - b + q) / 2
                let g = r - q
                rgba[index] = channelByte(r)
                rgba[index + 1] = channelByte(g)
                rgba[index + 2] = channelByte(b)
                rgba[index + 3] = channelByte(a)
                index += 4
            }
        }
        return (w, h, rgba)
    }

    /// The aspect ratio (width / height) a hash stores, from its luminance factor counts:
    /// approximate (the counts are small integers). Needs at least 5 bytes.
    public static func aspectRatio(of hash: [UInt8]) -> Double {
        guard hash.count >= 5 else { return 1 }
        let hasAlpha = hash[2] & 0x80 != 0
        let isLandscape = hash[4] & 0x80 != 0
        let lx = isLandscape ? (hasAlpha ? 5 : 7) : Int(hash[3] & 7)
        let ly = isLandscape ? Int(hash[3] & 7) : (hasAlpha ? 5 : 7)
        return ly == 0 ? 1 : Double(lx) / Double(ly)
    }

    // MARK: - Parts

    /// JavaScript's `Math.round`: halves go up (towards positive infinity).
    static func roundHalfUp(_ value: Double) -> Double { (value + 0.5).rounded(.down) }

    /// A decoded channel value as a byte, as a `Uint8Array` stores it: clamped to 0…1, times
    /// 255, truncated.
    private static func channelByte(_ value: Double) -> UInt8 {
        UInt8(max(0, 255 * min(1, value)))
    }

    /// The cosine factors of one image size, computed once for every channel: column cx at x
    /// is cos(π / width × cx × (x + 0.5)), `rows[cy][y]` likewise (the reference's expressions,
    /// so the same values).
    private struct CosineTransform {
        let width: Int
        let height: Int
        /// `columns[cx * width + x]`.
        let columns: [Double]
        let rows: [[Double]]

        /// Up to 7 factors across and down (luminance's most).
        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            columns = (0..<7).flatMap { cx in (0..<width).map { x in cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5)) } }
            rows = (0..<7).map { cy in (0..<height).map { y in cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5)) } }
        }

        /// The unnormalised sums of factors (`cx`, `cy`) and (`cx + 1`, `cy`) when `both`: every
        /// pixel times its column and row cosines, added row by row as the reference adds them.
        private func sumPair(_ channel: [Double], cx: Int, cy: Int, both: Bool) -> (Double, Double) {
            var first = 0.0
            var second = 0.0
            channel.withUnsafeBufferPointer { pixels in
                rows[cy].withUnsafeBufferPointer { fy in
                    columns.withUnsafeBufferPointer { fx in
                        let a = fx.baseAddress! + cx * width
                        let b = both ? a + width : a
                        for y in 0..<height {
                            let row = y * width
                            let factor = fy[y]
                            for x in 0..<width {
                                let value = pixels[x + row]
                                first += value * a[x] * factor
                                second += value * b[x] * factor
                            }
                        }
                    }
                }
            }
            return (first, second)
        }

        /// One channel's DC term, its AC terms normalised to 0…1 around 0.5, and their scale
        /// (the largest magnitude): the factors with `cx * ny < nx * (ny - cy)`, row by row.
        /// Each factor is summed pixel by pixel in the reference's order (rows, then columns),
        /// so its value is the reference's; the factors of one row of the transform are summed
        /// side by side, one pass over the pixels for all of them.
        func encode(_ channel: [Double], nx: Int, ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0
            var ac: [Double] = []
            var scale = 0.0
            var sums = [Double](repeating: 0, count: nx)
            for cy in 0..<ny {
                var count = 0
                while count * ny < nx * (ny - cy) { count += 1 }
                // Two factors per pass, each in its own register: two dependency chains of
                // additions at once instead of one.
                var cx = 0
                while cx < count {
                    let pair = sumPair(channel, cx: cx, cy: cy, both: cx + 1 < count)
                    sums[cx] = pair.0
                    if cx + 1 < count { sums[cx + 1] = pair.1 }
                    cx += 2
                }
                for cx in 0..<count {
                    let f = sums[cx] / Double(width * height)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                }
            }
            if scale > 0 {
                for index in ac.indices { ac[index] = 0.5 + 0.5 / scale * ac[index] }
            }
            return (dc, ac, scale)
        }
    }

    /// Rounds the hash's values, noting those rounded from (nearly) halfway when it has a
    /// tolerance.
    private struct Writer {
        let tolerance: Double?
        var ties: [Tie] = []

        /// `Math.round(value)`, for the field of `bits` bits at bit `offset` of the hash.
        mutating func quantize(_ value: Double, at offset: Int, bits: Int) -> Int {
            if let tolerance, abs(value - value.rounded(.down) - 0.5) < tolerance {
                ties.append(Tie(offset: offset, bits: bits))
            }
            return Int(ThumbHash.roundHalfUp(value))
        }
    }

    /// The constants of a hash.
    private struct Header {
        let luminanceDC, yellowBlueDC, redGreenDC, opacityDC: Double
        let luminanceScale, yellowBlueScale, redGreenScale, opacityScale: Double
        let hasAlpha: Bool
        let lx, ly: Int

        init(_ hash: [UInt8]) throws(Failure) {
            guard hash.count >= 5 else { throw .malformedHash }
            let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
            let header16 = Int(hash[3]) | Int(hash[4]) << 8
            hasAlpha = header24 >> 23 != 0
            guard !hasAlpha || hash.count >= 6 else { throw .malformedHash }
            luminanceDC = Double(header24 & 63) / 63
            yellowBlueDC = Double(header24 >> 6 & 63) / 31.5 - 1
            redGreenDC = Double(header24 >> 12 & 63) / 31.5 - 1
            luminanceScale = Double(header24 >> 18 & 31) / 31
            yellowBlueScale = Double(header16 >> 3 & 63) / 63
            redGreenScale = Double(header16 >> 9 & 63) / 63
            let isLandscape = header16 >> 15 != 0
            lx = max(3, isLandscape ? (hasAlpha ? 5 : 7) : header16 & 7)
            ly = max(3, isLandscape ? header16 & 7 : (hasAlpha ? 5 : 7))
            opacityDC = hasAlpha ? Double(hash[5] & 15) / 15 : 1
            opacityScale = hasAlpha ? Double(hash[5] >> 4) / 15 : 0
        }
    }

    /// Reads the AC nibbles that follow the constants.
    private struct FactorReader {
        let hash: [UInt8]
        let start: Int
        var nibble = 0

        init(hash: [UInt8], start: Int) {
            self.hash = hash
            self.start = start
        }

        mutating func read(nx: Int, ny: Int, scale: Double) throws(Failure) -> [Double] {
            var ac: [Double] = []
            for cy in 0..<ny {
                var cx = cy > 0 ? 0 : 1
                while cx * ny < nx * (ny - cy) {
                    let byte = start + nibble >> 1
                    guard byte < hash.count else { throw .malformedHash }
                    let value = Int(hash[byte]) >> ((nibble & 1) << 2) & 15
                    ac.append((Double(value) / 7.5 - 1) * scale)
                    nibble += 1
                    cx += 1
                }
            }
            return ac
        }
    }
}
