import Glibc
import TestSupport

/// One fuzz input's conversation with ``GlueServer`` over a fresh TCP connection on
/// 127.0.0.1: the client's preface, the input's frames (``ClientScript``), then a PING whose
/// ACK shows the server has read everything before it. nghttp2 sends the ACK ahead of answers
/// it had queued, so reading goes on until every stream the server owes an answer
/// (`ClientScript.awaited`) has ended or been reset, the server closes or sends a GOAWAY with
/// an error, or 200 ms pass; then the connection is closed with whatever is still open (the
/// abort paths are part of what is fuzzed). Everything read is checked (``ServerFrames``).
///
/// A failed check traps (a finding). An input that breaks the framing may leave the server
/// waiting for the rest of a frame: that is given up after 100 ms (1 s when the framing is
/// intact), not a finding. A socket the system refuses (descriptors or ports run out) skips
/// the input, counted in the outcome.
enum Conversation {
    /// The client's connection preface: the magic and an empty SETTINGS frame (RFC 9113 §3.4).
    static let preface = HTTP2Frames.preface + HTTP2Frames.frame(.settings)
    static let endMark = Array("glue-end".utf8)

    struct Outcome {
        var frames = 0
        var answered = 0
        var sawEndMark = false
        var skipped = false
    }

    static func run(_ input: [UInt8]) -> Outcome {
        let script = ClientScript(input)
        guard let fd = connectLoopback(port: GlueServer.port) else { return Outcome(skipped: true) }
        defer { close(fd) }
        // The end mark: a PING (RFC 9113 §6.7) the server answers after reading all before it.
        let ping = HTTP2Frames.frame(.ping, endMark)
        let frames = ServerFrames(script: script)
        let awaited = script.awaited
        var over: Bool { frames.closed || frames.sawFatalGoaway }
        if send(fd, preface + script.bytes + ping, reading: frames) {
            var deadline = now() + (script.framingIntact ? 1.0 : 0.1)
            var afterMark = false
            while !over, now() < deadline {
                if frames.sawEndMark && !afterMark {
                    afterMark = true
                    deadline = now() + 0.2
                }
                if afterMark && awaited.isSubset(of: frames.finished) { break }
                guard readAvailable(fd, into: frames, waitMilliseconds: 20) else { break }
            }
        }
        return Outcome(frames: frames.count, answered: frames.answeredStreams, sawEndMark: frames.sawEndMark)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// A non-blocking socket connecting to `port` on 127.0.0.1, or nil when the system refuses one.
    private static func connectLoopback(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 || errno == EINPROGRESS else {
            close(fd)
            return nil
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Writes all of `bytes`, reading what the server sends meanwhile (it may stop reading
    /// until its answers are read). False when the server closed first or a second passed.
    private static func send(_ fd: Int32, _ bytes: [UInt8], reading frames: ServerFrames) -> Bool {
        var offset = 0
        let deadline = now() + 1.0
        while offset < bytes.count {
            var poller = pollfd(fd: fd, events: Int16(POLLOUT | POLLIN), revents: 0)
            guard waitFor(&poller, milliseconds: 50) else { return false }
            if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                guard readAvailable(fd, into: frames, waitMilliseconds: 0) else { return false }
            }
            if poller.revents & Int16(POLLOUT) != 0 {
                let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                if written < 0 && errno != EAGAIN && errno != EINTR { return false }
                if written > 0 { offset += written }
            }
            if now() > deadline || frames.closed { return false }
        }
        return true
    }

    /// Reads what is there (waiting up to `waitMilliseconds` for something) into `frames`.
    /// False once the server has closed the connection or it failed.
    private static func readAvailable(_ fd: Int32, into frames: ServerFrames, waitMilliseconds: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard waitFor(&poller, milliseconds: waitMilliseconds) else { return false }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                frames.take(buffer[..<count])
                continue
            }
            if count == 0 || (errno != EAGAIN && errno != EINTR) {
                frames.closed = true
                return false
            }
            return true
        }
    }

    /// `poll` on one descriptor, again when a signal interrupted it (libFuzzer's timer); false
    /// when it failed otherwise.
    private static func waitFor(_ poller: inout pollfd, milliseconds: Int32) -> Bool {
        while poll(&poller, 1, milliseconds) < 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }
}
