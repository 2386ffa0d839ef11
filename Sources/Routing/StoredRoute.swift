import HTTPInterface

/// Stored answers (health, cache hits): a `GET` route's optional handler that runs on the loop
/// before the request is copied out of the connection's buffer, and answers from what it
/// holds or declines (the route's ordinary handler then answers).
public enum StoredRoute {
    /// Gets the request's bytes and the path parameter's raw bytes (empty when the pattern
    /// has none; never percent-encoded: a path that needs decoding does not come here), and
    /// appends the status line and fields to `answer.head` and sets its body, or returns
    /// false having written nothing. Only `GET` and `HEAD` requests without a body come here.
    /// It must not block, allocate on an answer, or keep any of the bytes.
    public typealias Handler = @Sendable (RequestBytes, UnsafeRawBufferPointer, inout StoredAnswer) -> Bool
}
