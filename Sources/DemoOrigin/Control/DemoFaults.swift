import Foundation
import GatewayModels
import GatewaySupport

/// The faults the demo origin injects into every request outside `/__admin/`.
///
/// Order per request: `down` resets the connection at once; otherwise the request waits
/// `latencyMs` (off the loop), then one seeded draw decides: a share `dropRate` of requests
/// get their connection reset with no byte sent, a further share `errorRate` get 500
/// `{"error": true, "reason": "Internal Server Error"}`, a further share `lostAnswerRate` are
/// carried out (a create creates) and then get their connection reset with no byte sent, as
/// when an answer is lost on the way; the rest their real answer.
public struct DemoFaults: Sendable, Hashable {
    /// Milliseconds added before each answer (0 to 600 000).
    public var latencyMs: Int
    /// Share of requests answered 500 (0 to 1).
    public var errorRate: Double
    /// Share of requests whose connection is reset without a reply (0 to 1).
    public var dropRate: Double
    /// Share of requests carried out whose connection is then reset without a reply (0 to 1).
    public var lostAnswerRate: Double
    /// Every request is reset without a reply, like a dead host that still accepts.
    public var down: Bool

    public init(latencyMs: Int = 0, errorRate: Double = 0, dropRate: Double = 0, lostAnswerRate: Double = 0, down: Bool = false) {
        self.latencyMs = latencyMs
        self.errorRate = errorRate
        self.dropRate = dropRate
        self.lostAnswerRate = lostAnswerRate
        self.down = down
    }

    /// Why a setting is out of range, or nil when all are fine.
    public var problem: String? {
        if !(0...600_000).contains(latencyMs) { return "latencyMs must be 0 to 600000." }
        if !(0...1).contains(errorRate) { return "errorRate must be 0 to 1." }
        if !(0...1).contains(dropRate) { return "dropRate must be 0 to 1." }
        if !(0...1).contains(lostAnswerRate) { return "lostAnswerRate must be 0 to 1." }
        // (With room for binary rounding: 0.34 + 0.56 + 0.1 is 1.0000000000000002.)
        if errorRate + dropRate + lostAnswerRate > 1 + 1e-9 { return "errorRate + dropRate + lostAnswerRate must not exceed 1." }
        return nil
    }

    /// `{"latencyMs":0,"errorRate":0,"dropRate":0,"lostAnswerRate":0,"down":false}`.
    public var json: [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.beginObject()
        writer.key("latencyMs"); writer.integer(Int64(latencyMs))
        writer.key("errorRate"); writer.decimal(Self.exact(errorRate))
        writer.key("dropRate"); writer.decimal(Self.exact(dropRate))
        writer.key("lostAnswerRate"); writer.decimal(Self.exact(lostAnswerRate))
        writer.key("down"); writer.bool(down)
        writer.endObject()
        return writer.bytes
    }

    /// These settings with the members of a JSON object applied (absent members keep their
    /// value). Unknown members are refused, so a typo does not silently change nothing.
    public func applying(json bytes: [UInt8]) throws(DemoFaultsError) -> DemoFaults {
        guard let value = JSONValue.parse(bytes), case .object(let members) = value else {
            throw DemoFaultsError("The body must be a JSON object.")
        }
        let known: Set<String> = ["latencyMs", "errorRate", "dropRate", "lostAnswerRate", "down"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw DemoFaultsError("Unknown member \"\(unknown)\"; known: latencyMs, errorRate, dropRate, lostAnswerRate, down.")
        }
        var result = self
        do {
            let reader = try JSONObjectReader(value)
            if let latency = try reader.int64IfPresent("latencyMs") {
                guard let milliseconds = Int(exactly: latency) else { throw DemoFaultsError("latencyMs must be 0 to 600000.") }
                result.latencyMs = milliseconds
            }
            if let rate = try reader.decimalIfPresent("errorRate") { result.errorRate = NSDecimalNumber(decimal: rate).doubleValue }
            if let rate = try reader.decimalIfPresent("dropRate") { result.dropRate = NSDecimalNumber(decimal: rate).doubleValue }
            if let rate = try reader.decimalIfPresent("lostAnswerRate") { result.lostAnswerRate = NSDecimalNumber(decimal: rate).doubleValue }
            if let down = try reader.boolIfPresent("down") { result.down = down }
        } catch let error as JSONShapeError {
            throw DemoFaultsError(error.description)
        } catch let error as DemoFaultsError {
            throw error
        } catch {
            throw DemoFaultsError("\(error)")
        }
        if let problem = result.problem { throw DemoFaultsError(problem) }
        return result
    }

    /// A rate as the shortest decimal that reads back as it (`0.1`, not `0.1000000000000000055…`).
    private static func exact(_ rate: Double) -> Decimal {
        DecimalText.parse("\(rate)") ?? Decimal(rate)
    }
}
