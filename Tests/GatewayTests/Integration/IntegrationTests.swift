import Testing

/// Every test here starts a real gateway on 127.0.0.1 and a free port and talks HTTP to it
/// over real sockets. Serialized: the machine has two cores, and the tests share them with
/// the servers they start.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct IntegrationTests {}
