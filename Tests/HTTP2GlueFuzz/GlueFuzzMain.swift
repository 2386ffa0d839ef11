#if LIBFUZZER
import CLibFuzzer
#endif
import Foundation

/// The HTTP/2 glue's fuzz target: frames in, the server's answers out, through the gateway's
/// transport on a real socket (``Conversation``).
///
/// Built by `scripts/fuzz http2-glue` with `-sanitize=fuzzer` and `-D LIBFUZZER` (SwiftPM,
/// AddressSanitizer): `main` hands over to libFuzzer's driver. Built plainly (`swift build`,
/// the sanitizer suites), it replays the inputs named on its command line, files or folders
/// of files (a corpus, findings), and prints what each drew: to reproduce a finding without
/// libFuzzer, under ThreadSanitizer for instance.
@main
enum GlueFuzzMain {
    static func main() {
        // Started before the first input, so that its start is not taken for that input's work.
        _ = GlueServer.port
        #if LIBFUZZER
        // libFuzzer's driver for a `main` of one's own: SwiftPM links executables through a
        // renamed `main`, so libFuzzer's own cannot be the one that runs.
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in glueTestOneInput(data, size) })
        #else
        // Folders' `.md` files (a findings folder's README) are not inputs.
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            FileHandle.standardError.write(Data("usage: http2-glue-fuzz FILE-OR-FOLDER...\n(scripts/fuzz http2-glue fuzzes)\n".utf8))
            exit(2)
        }
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                FileHandle.standardError.write(Data("no such file: \(path)\n".utf8))
                exit(1)
            }
            let files = isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().filter { !$0.hasSuffix(".md") }.map { "\(path)/\($0)" }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                let outcome = Conversation.run(Array(data))
                guard !outcome.skipped else {
                    print("\(file): skipped (no socket)")
                    continue
                }
                print("\(file): \(outcome.frames) frames, \(outcome.answered) streams answered, end mark \(outcome.sawEndMark ? "seen" : "not seen")")
            }
        }
        #endif
    }
}

/// One input: never fails by returning; a failed check traps.
func glueTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = Conversation.run(input)
    return 0
}

#if LIBFUZZER
/// libFuzzer's own `main` is linked too and names this symbol; it is not the `main` that runs.
@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    glueTestOneInput(data, size)
}
#endif
