extension HTTP1ConnectionStateMachine {
    /// What a read from the stream gave (after ``Step/receive`` or ``Step/discard``).
    public enum ReadOutcome: Sendable, Equatable {
        /// `count` bytes arrived (more than zero).
        case bytes(Int)
        /// The client sends no more: end of stream, or a read error (a reset).
        case endOfStream
        /// Nothing was there (would block, a TLS handshake step, a spurious wake-up).
        case nothing
        /// The input buffer is as large as the limits allow and the request still does not
        /// fit (only a chunked body's framing gets here).
        case bufferFull
    }

    /// What decoding the buffered input gave (after ``Step/decode``). The decoder, its
    /// buffer and the decoded message stay with the driver; the machine sees only this.
    public enum DecodeFact: Sendable, Equatable {
        /// Nothing is buffered (not decoded at all).
        case nothingBuffered
        /// More bytes are needed.
        case needMore
        /// The head of a request with a body is complete.
        /// `http10`: the request is HTTP/1.0. `bodyBytesBuffered`: bytes buffered after the
        /// head (100 Continue is sent only when none are).
        case head(expectsContinue: Bool, unsupportedExpectation: Bool, http10: Bool, bodyBytesBuffered: Int)
        /// A whole request. `keepAlive`: the client lets the connection carry another
        /// request (``RequestHead/keepAlive``).
        case complete(keepAlive: Bool, http10: Bool)
        /// The decoder refused the stream.
        case failure(RequestError)

        /// The fact for what `RequestDecoder.decode` returned for a buffer of
        /// `bufferedBytes` bytes from the message's start (the driver reports
        /// ``nothingBuffered`` itself, without decoding, when none are buffered).
        public init(_ result: RequestDecodeResult, bufferedBytes: Int) {
            switch result {
            case .needMore:
                self = .needMore
            case .head(let head):
                self = .head(
                    expectsContinue: head.expectsContinue, unsupportedExpectation: head.hasUnsupportedExpectation,
                    http10: head.minorVersion == 0, bodyBytesBuffered: bufferedBytes - head.length)
            case .complete(let message):
                self = .complete(keepAlive: message.head.keepAlive, http10: message.head.minorVersion == 0)
            case .failure(let error):
                self = .failure(error)
            }
        }
    }

    /// What a write left queued (after an answer, 100 Continue, or a flush of queued output).
    public enum WriteOutcome: Sendable, Equatable {
        /// Everything went out; nothing is queued.
        case drained
        /// Output is still queued: `bytes` not yet taken by the socket (a file's unsent part
        /// included); `sendingFile` while a file's body is still being sent.
        case pending(bytes: Int, sendingFile: Bool)
        /// The socket failed (the client reset, or a file ended early): close.
        case failed
    }
}
