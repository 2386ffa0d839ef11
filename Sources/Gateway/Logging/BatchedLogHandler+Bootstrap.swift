import Logging

extension BatchedLogHandler {
    /// Makes every logger of the process a `BatchedLogHandler` to stderr at `level`. Once per
    /// process, first thing in an executable's `run` (the `gateway` and `demo-origin` commands).
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = BatchedLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
