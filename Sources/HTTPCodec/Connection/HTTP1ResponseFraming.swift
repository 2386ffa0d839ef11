/// How an HTTP/1.1 answer's head ends, for the stored (cache-hit) answer and the routed one
/// alike: `Content-Length`, `Connection` and the blank line, with the rules of HEAD and of
/// the statuses that have no content.
///
/// The connection's state machine decides it (``HTTP1ConnectionStateMachine/Step/writeAnswer(_:)``);
/// the driver writes the status line, its own fields and `Date`, then calls
/// ``appendEnd(status:isHeadRequest:bodyLength:headContentLength:to:)`` and sends the body
/// only when that returns true.
public struct HTTP1ResponseFraming: Sendable, Equatable {
    /// The connection closes after this answer: the head says `Connection: close`.
    public var closeAfter: Bool
    /// The request was HTTP/1.0: a connection kept alive says `Connection: keep-alive`
    /// (HTTP/1.0 closes by default; HTTP/1.1 keeps alive by default and says nothing).
    public var http10: Bool

    public init(closeAfter: Bool, http10: Bool) {
        self.closeAfter = closeAfter
        self.http10 = http10
    }

    /// Appends the end of a response head for `status` and returns whether the body is
    /// sent (not for HEAD, not for 1xx, 204 or 304).
    ///
    /// - `Content-Length: bodyLength`, except for a status without content
    ///   (``HTTPStatus/hasNoContent(_:)``); for HEAD, `headContentLength` instead when it is
    ///   given and all digits (the length a handler declared for the GET it stands for),
    ///   otherwise `bodyLength` as well.
    /// - `Connection: close` when ``closeAfter``, else `Connection: keep-alive` for HTTP/1.0,
    ///   else nothing.
    /// - The blank line.
    ///
    /// Allocates nothing once `head` has the capacity.
    public func appendEnd(
        status: Int, isHeadRequest: Bool, bodyLength: Int, headContentLength: String? = nil, to head: inout [UInt8]
    ) -> Bool {
        let noContent = HTTPStatus.hasNoContent(status)
        if !noContent {
            if isHeadRequest, let declared = headContentLength, Self.isDigits(declared) {
                ResponseHeadWriter.appendField("Content-Length", declared, to: &head)
            } else {
                ResponseHeadWriter.appendContentLength(bodyLength, to: &head)
            }
        }
        if closeAfter {
            ResponseHeadWriter.appendPrebuilt(Self.connectionClose, to: &head)
        } else if http10 {
            ResponseHeadWriter.appendPrebuilt(Self.connectionKeepAlive, to: &head)
        }
        ResponseHeadWriter.appendEnd(to: &head)
        return !isHeadRequest && !noContent
    }

    private static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static let connectionClose: [UInt8] = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive: [UInt8] = Array("Connection: keep-alive\r\n".utf8)
}
