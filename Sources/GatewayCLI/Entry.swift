import Foundation

@main
enum Entry {
    static func main() {
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
