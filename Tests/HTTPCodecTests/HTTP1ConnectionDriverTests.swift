import HTTPCodec
import Testing

/// A driver as small as the state machine allows, over an in-memory socket and the real
/// `RequestDecoder`: each action is performed as its contract says. It answers `GET <path>`
/// with the path as the body, on the spot or later (`answersLater`).
struct SimulatedConnection {
    var machine = HTTP1ConnectionStateMachine(maxOutputBytes: 64 * 1024)
    var decoder = RequestDecoder()
    /// Bytes read and not consumed; the current message starts at 0.
    var buffer: [UInt8] = []
    /// What the next reads return: chunks of bytes, then the end of stream when `ends`.
    var incoming: [[UInt8]] = []
    var ends = false
    var answersLater = false
    /// What the client received.
    var wire = ""
    var reading = false
    var closed = false
    var shut = false
    /// Requests handed to the (asynchronous) handler and not answered yet.
    var handed: [String] = []
    var mostHandedAtOnce = 0
    private var message: RequestMessage?
    private var answer: (status: Int, body: String, isHead: Bool) = (200, "", false)

    init(answersLater: Bool = false) {
        self.answersLater = answersLater
        perform(machine.start())
    }

    /// The client sends `text` (delivered in `pieces`-byte reads when given); the read event
    /// fires while there is something to read and reading is on.
    mutating func client(sends text: String, pieces: Int? = nil, thenEnds: Bool = false) {
        let bytes = Array(text.utf8)
        let size = pieces ?? max(1, bytes.count)
        incoming += stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }
        ends = ends || thenEnds
        pump()
    }

    mutating func pump() {
        while reading && !closed && (!incoming.isEmpty || ends) {
            perform(machine.readable())
        }
    }

    /// The handler answers the oldest request it holds.
    mutating func handlerAnswers() {
        let path = handed.removeFirst()
        respond(status: 200, body: path, isHead: false)
        pump()
    }

    private mutating func respond(status: Int, body: String, isHead: Bool) {
        answer = (status, body, isHead)
        perform(machine.answerReady(dropsConnection: false))
    }

    mutating func perform(_ first: HTTP1ConnectionStateMachine.Action) {
        var action = first
        while true {
            switch action.reading {
            case .keep: break
            case .pause: reading = false
            case .resume: reading = true
            }
            switch action.step {
            case .wait:
                return
            case .receive:
                if incoming.isEmpty {
                    action = machine.received(ends ? .endOfStream : .nothing)
                } else {
                    let chunk = incoming.removeFirst()
                    buffer += chunk
                    action = machine.received(.bytes(chunk.count))
                }
            case .discard:
                action = machine.received(incoming.isEmpty ? (ends ? .endOfStream : .nothing) : .bytes(incoming.removeFirst().count))
            case .decode:
                if buffer.isEmpty {
                    action = machine.decoded(.nothingBuffered)
                } else {
                    let result = buffer.withUnsafeMutableBytes { decoder.decode($0) }
                    if case .complete(let complete) = result { message = complete }
                    action = machine.decoded(.init(result, bufferedBytes: buffer.count))
                }
            case .sendContinue:
                wire += "100|"
                action = machine.continueWritten(.drained)
            case .handle:
                let message = message!
                let (pathText, isHead) = buffer.withUnsafeBytes {
                    (String(decoding: message.head.path.bytes(in: $0), as: UTF8.self), message.head.method.equals("HEAD", in: $0))
                }
                buffer.removeFirst(message.length)
                if answersLater {
                    handed.append(pathText)
                    mostHandedAtOnce = max(mostHandedAtOnce, handed.count)
                } else {
                    respond(status: 200, body: pathText, isHead: isHead)
                }
                action = machine.requestHandled()
            case .refuse(let refusal):
                let status = switch refusal {
                case .malformed(let error): error.status
                case .unsupportedExpectation: 417
                case .headTimeout, .bodyTimeout: 408
                }
                respond(status: status, body: "", isHead: false)
                return
            case .writeAnswer(let framing):
                var head: [UInt8] = []
                ResponseHeadWriter.appendStatusLine(answer.status, to: &head)
                let sendsBody = framing.appendEnd(
                    status: answer.status, isHeadRequest: answer.isHead, bodyLength: answer.body.utf8.count, to: &head)
                wire += String(decoding: head, as: UTF8.self) + (sendsBody ? answer.body : "") + "|"
                action = machine.answerWritten(.drained)
            case .shutOutput:
                shut = true
                action = .none
            case .shutOutputAndClose, .close, .reset:
                shut = shut || action.step == .shutOutputAndClose
                closed = true
                return
            }
        }
    }
}

@Suite struct HTTP1ConnectionDriverTests {
    static let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n\r\n"
    static let answers = ["/a", "/b", "/c"].map { "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n\($0)|" }.joined()

    @Test func pipelinedRequestsAnsweredOnTheSpotInOrder() {
        for pieces in [nil, 1, 7] {
            var connection = SimulatedConnection()
            connection.client(sends: Self.get, pieces: pieces)
            #expect(connection.wire == Self.answers)
            #expect(connection.machine.isIdle)
            #expect(connection.reading)
        }
    }

    @Test func pipelinedRequestsAnsweredLaterOneAtATimeInOrder() {
        var connection = SimulatedConnection(answersLater: true)
        connection.client(sends: Self.get)
        #expect(connection.handed == ["/a"])
        #expect(!connection.reading)
        connection.handlerAnswers()
        connection.handlerAnswers()
        connection.handlerAnswers()
        #expect(connection.wire == Self.answers)
        #expect(connection.mostHandedAtOnce == 1)
        #expect(connection.machine.isIdle)
    }

    @Test func endOfStreamAfterRequestsAnswersThemThenCloses() {
        var connection = SimulatedConnection()
        connection.client(sends: Self.get, thenEnds: true)
        #expect(connection.wire == Self.answers)
        #expect(connection.closed)
        #expect(!connection.shut)
    }

    @Test func aMalformedRequestAfterAGoodOneIsRefusedThenLingers() {
        var connection = SimulatedConnection()
        connection.client(sends: "HEAD /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.1\nHost: x\r\n\r\n")
        #expect(
            connection.wire
                == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n|"
                + "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n|")
        #expect(connection.shut && !connection.closed)
        connection.client(sends: "more", thenEnds: true)
        #expect(connection.closed)
    }

    @Test func continueThenTheBody() {
        var connection = SimulatedConnection()
        connection.client(sends: "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        #expect(connection.wire == "100|")
        connection.client(sends: "abc")
        #expect(connection.wire == "100|HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n/up|")
    }
}
