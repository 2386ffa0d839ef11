import Foundation
import Transport

@main
enum Entry {
    static func main() {
        // Before OpenSSL allocates anything (it takes an allocator only before that).
        TLSMemory.install()
        // Before any thread starts: only the thread waiting in ProcessSignals takes signals.
        ProcessSignals.blockOnThisThreadAndItsChildren()
        do {
            let arguments = try EnvironmentOptions.merge(
                arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
            GatewayCommand.main(arguments)
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.description)\n".utf8))
            exit(64)
        }
    }
}
