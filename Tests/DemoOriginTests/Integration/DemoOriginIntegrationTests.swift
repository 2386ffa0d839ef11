import Testing

/// Every test here starts a real demo origin on 127.0.0.1 and a free port and talks HTTP to
/// it over real sockets. Serialized: two cores, shared with the servers the tests start.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DemoOriginIntegrationTests {}
