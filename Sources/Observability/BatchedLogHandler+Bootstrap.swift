import Logging

extension BatchedLogHandler {
    /// Makes every logger of the process a `BatchedLogHandler` to stderr at `level` in
    /// `format`. Once per process, first thing in an executable's `run` (the `gateway` and
    /// `demo-origin` commands).
    public static func bootstrap(level: Logger.Level, format: Format = .text) {
        LoggingSystem.bootstrap { label in
            var handler = BatchedLogHandler(label: label, format: format)
            handler.logLevel = level
            return handler
        }
    }
}
