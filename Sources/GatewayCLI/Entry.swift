import Foundation

@main
enum Entry {
    static func main() {
        let arguments = EnvironmentOptions.merge(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        GatewayCommand.main(arguments)
    }
}
