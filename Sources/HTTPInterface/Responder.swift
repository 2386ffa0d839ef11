/// Where the one response to one request goes. The transport implements it.
public protocol ResponseSink: Sendable {
    /// Takes the response; may be called on any thread. Called at most once per request.
    func deliver(_ response: GatewayResponse)
    /// Names the request's verified user for the access line once it is known only after
    /// the handler was chosen (a token judged after its key set was fetched again). Called on
    /// the loop that owns the request, before `deliver`.
    func identify(user: String)
}

extension ResponseSink {
    public func identify(user: String) {}
}

/// Handed to every handler with its request. Call `send` or `fail` exactly once, from any
/// thread, even when the client has gone: the transport releases the request only then.
public struct Responder: Sendable {
    package let sink: any ResponseSink
    package let requestID: String

    public init(sink: any ResponseSink, requestID: String) {
        self.sink = sink
        self.requestID = requestID
    }

    public func send(_ response: GatewayResponse) {
        sink.deliver(response)
    }

    /// See ``ResponseSink/identify(user:)``: on the request's loop, before answering.
    public func identify(user: String) {
        sink.identify(user: user)
    }

    /// Answers with `error` as problem+json; an error that is not a `GatewayError` becomes
    /// a 500 whose body says nothing about it (the caller logs it).
    public func fail(_ error: any Error) {
        let gatewayError = error as? GatewayError ?? .internalError()
        sink.deliver(gatewayError.response(requestID: requestID))
    }
}
