import HTTPCodec

/// What a connection needs while it reads a request: the read buffer, where the unconsumed
/// bytes lie in it, and the decoder. Lent by the loop's `ConnectionInputPool` when bytes
/// arrive and given back once nothing of a request is buffered, so a connection waiting
/// between requests holds none of it.
///
/// Invariant: used only on its loop's thread, by the one connection it is lent to.
final class ConnectionInput {
    /// `bytes[start..<end]` holds the bytes not consumed yet; `start` is the first byte of
    /// the current request.
    // Unchecked exclusivity: used only on the loop's thread by the one connection it is
    // lent to, whose accesses never overlap (checked builds of the whole suite pass); the
    // dynamic checks cost every cache hit.
    @exclusivity(unchecked) var bytes: [UInt8]
    @exclusivity(unchecked) var start = 0
    @exclusivity(unchecked) var end = 0
    @exclusivity(unchecked) var decoder: RequestDecoder
    /// When the current request's head began (its deadline counts from there).
    var headStarted = ContinuousClock.Instant.now

    init(limits: RequestLimits) {
        bytes = [UInt8](repeating: 0, count: ConnectionInputPool.bufferSize)
        decoder = RequestDecoder(limits: limits)
    }
}

/// One loop's spare `ConnectionInput`s. Keeping spares means a keep-alive request allocates
/// nothing to read with.
///
/// Invariant: used only on its loop's thread (it is part of that loop's `ServerLoop`).
struct ConnectionInputPool {
    /// The size of a lent buffer; an input whose buffer grew for a large request is freed
    /// instead of kept.
    static let bufferSize = 16 * 1024
    /// The most spares kept: enough for the connections one loop has mid-request at once in
    /// usual traffic; past it, returned inputs are freed.
    static let maxSpares = 64

    let limits: RequestLimits
    private var spares: [ConnectionInput] = []

    init(limits: RequestLimits) {
        self.limits = limits
        spares.reserveCapacity(Self.maxSpares)
    }

    /// An input with an empty buffer and a decoder between messages, the caller's until
    /// `giveBack`.
    mutating func lend() -> ConnectionInput {
        spares.popLast() ?? ConnectionInput(limits: limits)
    }

    /// Keeps `input` as a spare when it can serve another connection as it is (usual buffer
    /// size, decoder between messages) and a spare is wanted; otherwise it is freed.
    mutating func giveBack(_ input: ConnectionInput) {
        guard input.bytes.count == Self.bufferSize, input.decoder.isBetweenMessages, spares.count < Self.maxSpares else { return }
        input.start = 0
        input.end = 0
        spares.append(input)
    }

    /// Spares held now (for tests).
    var spareCount: Int { spares.count }
}
