import HTTPCodec
import Testing

/// Every transition of one HTTP/2 request stream, without a socket or nghttp2: fields, the
/// head, the body, trailers, refusals and the reset after them, and the stream's deadlines on
/// their boundaries (the instants are made up).
@Suite struct HTTP2StreamStateMachineTests {
    typealias Machine = HTTP2StreamStateMachine
    let t0 = ContinuousClock.now

    func machine() -> Machine {
        Machine(maxHeadBytes: 100, maxBodyBytes: 10, bodyTimeout: .seconds(30), writeTimeout: .seconds(5), now: t0)
    }

    /// The head a POST to an upload route reads: the route's body limit (1,000) replaces the
    /// server's (10).
    func uploadHead(declared: Int? = nil) -> (RequestDecodeResult, Int?) {
        var assembly = HTTP2RequestAssembly(maxHeaderListSize: 1000)
        var fields = [(":method", "POST"), (":authority", "a"), (":path", "/v1/products")]
        if let declared { fields.append(("content-length", String(declared))) }
        for (name, value) in fields {
            Array(name.utf8).withUnsafeBytes { name in Array(value.utf8).withUnsafeBytes { assembly.add(name: name, value: $0) } }
        }
        let limits = RequestLimits(maxBodyBytes: 10, maxUploadBytes: 1000, uploadRoutes: [UploadRoute(method: "POST", path: "/v1/products")])
        return (assembly.head(limits: limits), assembly.declaredContentLength)
    }

    @Test func startsReadingTheHeadWithTheServersLimits() {
        let m = Machine(
            limits: HTTP2ConnectionStateMachine.Limits(
                maxHeadBytes: 100, maxConcurrentStreams: 8, headerTimeout: .seconds(10), bodyTimeout: .seconds(30), writeTimeout: .seconds(5),
                idleTimeout: .seconds(60), resetBurst: 3, resetRate: 1, maxOutputBytes: 1000),
            maxBodyBytes: 10, now: t0)
        #expect(m.phase == .head)
        #expect(m.maxHeadBytes == 100)
        #expect(m.maxBodyBytes == 10)
        #expect(m.bodyTimeout == .seconds(30))
        #expect(m.writeTimeout == .seconds(5))
        #expect(m.lastProgress == t0)
        #expect(!m.clientEnded && !m.resetAfterAnswer && m.stalledSince == nil)
    }

    /// A GET: its fields are the request's, counted as RFC 9113 counts them; END_STREAM on
    /// the HEADERS hands it on at once, and the stream is answered.
    @Test func aRequestWithoutABodyIsHandledWhenItsHeadEnds() {
        var m = machine()
        #expect(m.fieldDecoded(nameLength: 7, valueLength: 3) == .request)
        #expect(m.headBytes == 42)
        #expect(m.headersEnded(endStream: true, now: t0 + .seconds(1)) == .handle)
        #expect(m.phase == .answered)
        #expect(m.clientEnded)
        // What else arrives is dropped.
        #expect(m.dataReceived(count: 1, now: t0) == .drop)
        #expect(m.fieldDecoded(nameLength: 1, valueLength: 1) == .drop)
        #expect(m.headersEnded(endStream: true, now: t0) == .none)
        #expect(m.dataEnded() == .none)
        #expect(m.answerEnded() == false)
    }

    /// A POST: the head is read first, the route's limit taken, the body appended up to it
    /// (progress moves the body deadline), and END_STREAM on the DATA hands it on.
    @Test func aBodyIsReadUpToItsRoutesLimit() {
        var m = machine()
        #expect(m.headersEnded(endStream: false, now: t0 + .seconds(1)) == .readHead)
        #expect(m.phase == .body)
        #expect(m.lastProgress == t0 + .seconds(1))
        let (head, declared) = uploadHead()
        #expect(m.headRead(head, declaredContentLength: declared) == .none)
        #expect(m.maxBodyBytes == 1000)
        #expect(m.dataReceived(count: 600, now: t0 + .seconds(2)) == .append)
        #expect(m.dataReceived(count: 400, now: t0 + .seconds(3)) == .append)
        #expect(m.bodyBytes == 1000)
        #expect(m.lastProgress == t0 + .seconds(3))
        #expect(m.dataEnded() == .handle)
        #expect(m.phase == .answered)
        #expect(m.answerEnded() == false)
    }

    /// One byte over the route's limit: 413, and while the client is still sending, the
    /// stream is reset (NO_ERROR) once the answer's last frame is out, once.
    @Test func aBodyOverTheLimitIsRefusedAndTheStreamResetAfterTheAnswer() {
        var m = machine()
        #expect(m.headersEnded(endStream: false, now: t0) == .readHead)
        #expect(m.dataReceived(count: 10, now: t0) == .append)
        #expect(m.dataReceived(count: 1, now: t0) == .refuse(.bodyTooLarge(limit: 10)))
        #expect(m.phase == .answered)
        #expect(m.bodyBytes == 10)
        #expect(m.resetAfterAnswer)
        #expect(m.dataReceived(count: 1, now: t0) == .drop)
        #expect(m.answerEnded() == true)
        #expect(m.answerEnded() == false)
    }

    /// The client ended its body before the refusal's answer went out: no reset.
    @Test func noResetWhenTheClientEndedMeanwhile() {
        var m = machine()
        _ = m.headersEnded(endStream: false, now: t0)
        _ = m.dataReceived(count: 11, now: t0)
        #expect(m.resetAfterAnswer)
        #expect(m.dataEnded() == .none)
        #expect(m.clientEnded)
        #expect(m.answerEnded() == false)
    }

    /// A declared `content-length` over the route's limit is refused before any DATA.
    @Test func aDeclaredLengthOverTheLimitIsRefusedFromTheHead() {
        var m = machine()
        _ = m.headersEnded(endStream: false, now: t0)
        let (head, declared) = uploadHead(declared: 1001)
        #expect(m.headRead(head, declaredContentLength: declared) == .refuse(.bodyTooLarge(limit: 1000)))
        #expect(m.phase == .answered)
        #expect(m.resetAfterAnswer)
    }

    /// A head the decoder refuses is answered with its own status; one it cannot finish, 400.
    @Test func aMalformedHeadIsRefusedWithItsStatus() {
        var m = machine()
        _ = m.headersEnded(endStream: false, now: t0)
        #expect(m.headRead(.failure(.targetTooLong), declaredContentLength: nil)
                == .refuse(.head(.targetTooLong)))
        var n = machine()
        _ = n.headersEnded(endStream: false, now: t0)
        #expect(n.headRead(.needMore, declaredContentLength: nil) == .refuse(.malformedHead))
        // Not after the body ended or the stream was refused.
        #expect(n.headRead(.needMore, declaredContentLength: nil) == .none)
    }

    /// Fields past the header list limit: 431 when the block ends (with or without a body);
    /// past sixteen times the limit, the session ends (an HPACK bomb).
    @Test func headerFieldsOverTheLimitAre431AndFarOverEndTheSession() {
        var m = machine()
        #expect(m.fieldDecoded(nameLength: 60, valueLength: 8) == .request)
        #expect(!m.headIsOverLimit)
        #expect(m.fieldDecoded(nameLength: 1, valueLength: 0) == .request)
        #expect(m.headIsOverLimit)
        #expect(m.headersEnded(endStream: true, now: t0) == .refuse(.fieldsTooLarge(limit: 100)))
        #expect(!m.resetAfterAnswer)
        var n = machine()
        #expect(n.fieldDecoded(nameLength: 1568, valueLength: 0) == .request)
        #expect(n.headBytes == 1600)
        #expect(n.fieldDecoded(nameLength: 0, valueLength: 0) == .terminate(.enhanceYourCalm))
        var o = machine()
        _ = o.fieldDecoded(nameLength: 100, valueLength: 0)
        #expect(o.headersEnded(endStream: false, now: t0) == .refuse(.fieldsTooLarge(limit: 100)))
        #expect(o.resetAfterAnswer)
    }

    /// Trailers (HEADERS after the body, with END_STREAM) are counted as HTTP/1.1 lines and
    /// dropped; within the limit the request is handled, past it 431; far past it the
    /// session ends.
    @Test func trailersAreCountedAndDropped() {
        var m = machine()
        _ = m.headersEnded(endStream: false, now: t0)
        #expect(m.fieldDecoded(nameLength: 50, valueLength: 46) == .drop)
        #expect(m.trailerBytes == 100)
        #expect(m.headersEnded(endStream: false, now: t0) == .none)
        #expect(m.headersEnded(endStream: true, now: t0) == .handle)
        var n = machine()
        _ = n.headersEnded(endStream: false, now: t0)
        _ = n.fieldDecoded(nameLength: 50, valueLength: 47)
        #expect(n.headersEnded(endStream: true, now: t0) == .refuse(.trailersTooLarge))
        #expect(!n.resetAfterAnswer)
        var o = machine()
        _ = o.headersEnded(endStream: false, now: t0)
        #expect(o.fieldDecoded(nameLength: 1596, valueLength: 0) == .drop)
        #expect(o.fieldDecoded(nameLength: 0, valueLength: 0) == .terminate(.enhanceYourCalm))
    }

    /// The body deadline runs from the last progress, only while a body is read: 408 one
    /// instant past it.
    @Test func aBodyWithoutProgressIsRefusedAtItsDeadline() {
        var m = machine()
        #expect(m.deadlineFired(now: t0 + .seconds(60)) == nil)
        _ = m.headersEnded(endStream: false, now: t0)
        _ = m.dataReceived(count: 1, now: t0 + .seconds(10))
        #expect(m.deadlineFired(now: t0 + .seconds(40)) == nil)
        #expect(m.deadlineFired(now: t0 + .seconds(40) + .milliseconds(1)) == .bodyTimedOut)
        #expect(m.phase == .answered)
        #expect(m.resetAfterAnswer)
        #expect(m.deadlineFired(now: t0 + .seconds(90)) == nil)
    }

    /// The driver's own refusal (a request it could not read) after the body ended: no reset;
    /// before: a reset. Refusing twice changes nothing.
    @Test func theDriversRefusals() {
        var m = machine()
        _ = m.headersEnded(endStream: false, now: t0)
        m.refused()
        #expect(m.phase == .answered && m.resetAfterAnswer)
        m.refused()
        #expect(m.resetAfterAnswer)
        var n = machine()
        #expect(n.headersEnded(endStream: true, now: t0) == .handle)
        n.refused()
        #expect(!n.resetAfterAnswer)
    }

    /// The answer held back by a closed window: reset past the write deadline from when it
    /// closed; an open window starts over.
    @Test func aClosedWindowIsTimed() {
        var m = machine()
        #expect(m.windowChecked(closed: true, now: t0) == false)
        #expect(m.stalledSince == t0)
        #expect(m.windowChecked(closed: true, now: t0 + .seconds(5)) == false)
        #expect(m.windowChecked(closed: true, now: t0 + .seconds(5) + .milliseconds(1)) == true)
        #expect(m.windowChecked(closed: false, now: t0 + .seconds(7)) == false)
        #expect(m.stalledSince == nil)
        #expect(m.windowChecked(closed: true, now: t0 + .seconds(8)) == false)
        #expect(m.stalledSince == t0 + .seconds(8))
    }

    /// What each refusal answers: its status and problem detail.
    @Test func refusalsAnswerWithTheirStatusAndDetail() {
        typealias Refusal = Machine.Refusal
        let cases: [(Refusal, Int, String)] = [
            (.fieldsTooLarge(limit: 100), 431, "The request's header fields are larger than 100 bytes."),
            (.trailersTooLarge, 431, RequestError.headTooLarge.detail),
            (.head(.targetTooLong), 414, RequestError.targetTooLong.detail),
            (.malformedHead, 400, "The request head is malformed."),
            (.bodyTooLarge(limit: 10), 413, "The request body is larger than 10 bytes."),
            (.bodyTimedOut, 408, "The request body made no progress in time."),
        ]
        for (refusal, status, detail) in cases {
            #expect(refusal.status == status)
            #expect(refusal.detail == detail)
        }
        #expect(RequestError.headTooLarge.status == 431)
        #expect(RequestError.targetTooLong.status == 414)
    }
}
