// ModelsBenchmark: decode + map + format + encode of the 20-item v1 sample page, and the
// ThumbHash of a placeholder.
//
//   swift run -c release ModelsBenchmark [path/to/v1-items-page.json] [iterations]
//
// Prints the median (and p10/p90) of per-iteration wall time for the full read path
// (`OriginGeneration.v1.pageJSON`), and of its stages, so a regression can be placed.
// Not a test: timings depend on the machine and its load.
import Foundation
import GatewayModels
import GatewaySupport

let arguments = CommandLine.arguments
let defaultSample = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/GatewayModelsTests/Fixtures/v1-items-page.json").path
let samplePath = arguments.count > 1 ? arguments[1] : defaultSample
let iterations = arguments.count > 2 ? Int(arguments[2]) ?? 5000 : 5000
guard let sample = FileManager.default.contents(atPath: samplePath) else {
    fatalError("cannot read \(samplePath)")
}
let bytes = [UInt8](sample)

/// Runs `body` `iterations` times after a warm-up and returns sorted per-run durations in µs.
func measure(_ name: String, _ body: () throws -> Int) rethrows {
    var sink = 0
    for _ in 0..<min(500, iterations) { sink &+= try body() }
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    let clock = ContinuousClock()
    for _ in 0..<iterations {
        let start = clock.now
        sink &+= try body()
        let elapsed = clock.now - start
        samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
    }
    samples.sort()
    func percentile(_ p: Double) -> Double { samples[min(samples.count - 1, Int(Double(samples.count) * p))] }
    print(String(format: "%-44@ median %8.1f µs   p10 %8.1f   p90 %8.1f   (n=%d, sink %d)",
                 name as NSString, percentile(0.5), percentile(0.1), percentile(0.9), iterations, sink & 1))
}

let page = try OriginGeneration.v1.mapPage(bytes: bytes, page: 1, locale: .koKR)
print("sample: \(samplePath) (\(bytes.count) bytes, \(page.items.count) items)")
try measure("full: v1.pageJSON(bytes:page:locale:) ko-KR") {
    try OriginGeneration.v1.pageJSON(bytes: bytes, page: 1, locale: .koKR).count
}
try measure("full: v1.pageJSON(bytes:page:locale:) en-US") {
    try OriginGeneration.v1.pageJSON(bytes: bytes, page: 1, locale: .enUS).count
}
try measure("stage: JSONParser + V1ItemsPage (chosen)") {
    try V1ItemsPage(json: bytes).items.count
}
try measure("alt: JSONDecoder V1ItemsPage (via JSONValue)") {
    try JSONDecoder().decode(V1ItemsPage.self, from: sample).items.count
}
try measure("alt: JSONSerialization (untyped)") {
    (try JSONSerialization.jsonObject(with: sample) as? [String: Any])?.count ?? 0
}
measure("stage: 40 money + 20 stock strings") {
    var n = 0
    for item in page.items {
        let money = DisplayFormatters.money(currency: item.currency, locale: .koKR)
        n &+= money.string(item.price).utf8.count &+ money.string(item.discountedPrice ?? 0).utf8.count
        n &+= StockLabel.text(stock: item.stock, locale: .koKR).utf8.count
    }
    return n
}
measure("stage: encode contract page (JSONWriter)") {
    page.jsonBytes().count
}

// `--print`: the contract JSON of the sample page (ko-KR), as the README example uses it.
if arguments.contains("--print") {
    print(String(decoding: try OriginGeneration.v1.pageJSON(bytes: bytes, page: 1, locale: .koKR), as: UTF8.self))
}
try measure("alt: JSONParser (JSONValue tree)") {
    if case .object(let object) = try JSONParser.parse(bytes) { return object.count }
    return 0
}

// ThumbHash of a 100×100 and a 100×75 image (the largest an image worker hands it), opaque
// and with alpha: the placeholder's cost per image on a worker, past the source's decode.
for (width, height, alpha) in [(100, 100, false), (100, 75, false), (100, 100, true)] {
    var rgba: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width {
            rgba += [UInt8((x * x + 3 * y) % 256), UInt8((x * y + 50) % 256), UInt8((7 * x + y * y) % 256), alpha ? UInt8((x * 13 + y * 29) % 256) : 255]
        }
    }
    try measure("placeholder: ThumbHash \(width)x\(height)\(alpha ? " alpha" : "")") {
        try ThumbHash.encode(width: width, height: height, rgba: rgba).count
    }
}
