// `swift run -c release PlaceholderBenchmark [image files…]`: what a placeholder costs on an
// image worker: the preview (decode with shrink-on-load, EXIF orientation, sRGB RGBA at most
// 100 px) and the ThumbHash, per image, on one thread. Without files it measures images made
// here with libvips: photo-like JPEGs of 1000 × 1000 (about 220 KB, as the screen benchmark's
// thumbnails) and 1600 × 1067, a 320 px JPEG thumbnail and a 480 px PNG with alpha.
import Foundation
import GatewayModels
import ImageProcessing

/// Photo-like RGB pixels (a gradient with grain), `width` × `height`.
func photo(width: Int, height: Int) -> [UInt8] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var rgb = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            for channel in 0..<3 {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                let base = (x * 200 / width + y * 55 / height + channel * 40) % 256
                rgb[(y * width + x) * 3 + channel] = UInt8(clamping: base + Int(state % 41) - 20)
            }
        }
    }
    return rgb
}

func rgbaDisc(side: Int) -> [UInt8] {
    var rgba = [UInt8](repeating: 0, count: side * side * 4)
    for y in 0..<side {
        for x in 0..<side where (x - side / 2) * (x - side / 2) + (y - side / 2) * (y - side / 2) < side * side / 5 {
            let offset = (y * side + x) * 4
            rgba[offset] = 200
            rgba[offset + 1] = UInt8(x * 255 / side)
            rgba[offset + 2] = 90
            rgba[offset + 3] = 255
        }
    }
    return rgba
}

var images: [(String, [UInt8])] = []
let arguments = CommandLine.arguments.dropFirst()
if arguments.isEmpty {
    for (width, height) in [(1000, 1000), (1600, 1067), (320, 213)] {
        let jpeg = try ImageProcessor.encode(pixels: photo(width: width, height: height), width: width, height: height, bands: 3, format: .jpeg, quality: 88)
        images.append(("JPEG \(width)×\(height), \(jpeg.count / 1000) KB", jpeg))
    }
    let png = try ImageProcessor.encode(pixels: rgbaDisc(side: 480), width: 480, height: 480, bands: 4, format: .png)
    images.append(("PNG 480×480 with alpha, \(png.count / 1000) KB", png))
} else {
    for path in arguments {
        guard let data = FileManager.default.contents(atPath: path) else { fatalError("cannot read \(path)") }
        images.append((path, [UInt8](data)))
    }
}

for (name, bytes) in images {
    // Warm up, then the median of several timed rounds.
    _ = try ImageProcessor.preview(bytes, maxPixels: 40_000_000, timeLimit: .seconds(10))
    var previews: [Double] = []
    var hashes: [Double] = []
    for _ in 0..<25 {
        let started = ContinuousClock.now
        let preview = try ImageProcessor.preview(bytes, maxPixels: 40_000_000, timeLimit: .seconds(10))
        let previewed = ContinuousClock.now
        _ = try ThumbHash.encode(width: preview.width, height: preview.height, rgba: preview.rgba)
        let hashed = ContinuousClock.now
        previews.append(Double((previewed - started) / .nanoseconds(1)) / 1000)
        hashes.append(Double((hashed - previewed) / .nanoseconds(1)) / 1000)
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    print(String(format: "%@: preview %.0f µs + ThumbHash %.0f µs = %.0f µs per image", name, median(previews), median(hashes),
                 median(zip(previews, hashes).map { $0 + $1 })))
}
for (name, bytes) in images {
    var probes: [Double] = []
    for _ in 0..<25 {
        let started = ContinuousClock.now
        _ = try ImageProcessor.probe(bytes)
        probes.append(Double((ContinuousClock.now - started) / .nanoseconds(1)) / 1000)
    }
    print(String(format: "%@: header only %.0f µs", name, probes.sorted()[12]))
}
