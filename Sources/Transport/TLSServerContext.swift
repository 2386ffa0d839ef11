import COpenSSL
import Glibc
import Synchronization

/// The files a server's TLS context is made from.
public struct TLSServerFiles: Sendable, Equatable {
    /// PEM certificate chain.
    public var certificateFile: String
    /// PEM private key of the chain's first certificate.
    public var privateKeyFile: String
    /// Session ticket keys of 80 bytes each (see `TLSTicketKeys`), the first sealing new
    /// tickets. Empty: one random key made at start, kept for the life of the process.
    public var ticketKeyFiles: [String]

    public init(certificateFile: String, privateKeyFile: String, ticketKeyFiles: [String] = []) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.ticketKeyFiles = ticketKeyFiles
    }

    /// Every file, certificate first.
    public var all: [String] { [certificateFile, privateKeyFile] + ticketKeyFiles }
}

/// The public listener's TLS context, which can be made again from its files while the server
/// runs. Every loop asks it for a new connection's `SSL` (under a lock, once per accepted
/// connection); a reload swaps in a whole new context, so connections accepted before it keep
/// the one they began with (OpenSSL keeps a context alive while one of its `SSL`s is) and no
/// connection is dropped. A reload that fails changes nothing.
///
/// Tickets stay valid across reloads: with key files, while the files keep the keys; without,
/// the random key made at start is kept.
public final class TLSServerContext: Sendable {
    public let files: TLSServerFiles
    private let offersHTTP2: Bool
    /// The key sealing tickets when no key file is given; nil with key files.
    private let processTicketKeys: TLSTicketKeys?
    private let state: Mutex<State>

    private struct State {
        var context: TLSContext
        /// The files as they were when last loaded (or tried): a change is a reason to reload.
        var stamps: [FileStamp?]
    }

    /// Loads the files.
    ///
    /// - Throws: `TransportError` when a file cannot be read, the key does not match the
    ///   certificate, or a ticket key file does not hold 80 bytes.
    public init(files: TLSServerFiles, offersHTTP2: Bool) throws(TransportError) {
        self.files = files
        self.offersHTTP2 = offersHTTP2
        if files.ticketKeyFiles.isEmpty {
            processTicketKeys = try TLSTicketKeys.random()
        } else {
            processTicketKeys = nil
        }
        let stamps = files.all.map(FileStamp.init(path:))
        let context = try Self.load(files, offersHTTP2: offersHTTP2, processTicketKeys: processTicketKeys)
        state = Mutex(State(context: context, stamps: stamps))
    }

    /// Loads every file again and, when all load and agree, makes new connections use them.
    /// Reads files: call it off the serving loops (the signal thread does).
    ///
    /// - Throws: `TransportError` saying what failed; the context in use stays.
    public func reload() throws(TransportError) {
        let stamps = files.all.map(FileStamp.init(path:))
        state.withLock { $0.stamps = stamps }
        let context = try Self.load(files, offersHTTP2: offersHTTP2, processTicketKeys: processTicketKeys)
        state.withLock { $0.context = context }
    }

    /// Whether a file was replaced, changed, appeared or vanished since the last load or
    /// reload attempt (device, inode, size and modification time; a symbolic link is
    /// followed, so a Kubernetes secret volume's swap counts).
    public var filesChanged: Bool {
        let now = files.all.map(FileStamp.init(path:))
        return state.withLock { $0.stamps != now }
    }

    /// A new `SSL` for an accepted connection, from the context in use; the caller owns it.
    /// Any thread.
    func makeServerSSL() -> OpaquePointer? {
        state.withLock { $0.context.makeServerSSL() }
    }

    private static func load(_ files: TLSServerFiles, offersHTTP2: Bool, processTicketKeys: TLSTicketKeys?) throws(TransportError) -> TLSContext {
        let ticketKeys: TLSTicketKeys
        if let processTicketKeys {
            ticketKeys = processTicketKeys
        } else {
            ticketKeys = try TLSTicketKeys.load(files.ticketKeyFiles)
        }
        return try TLSContext.server(
            certificateFile: files.certificateFile, privateKeyFile: files.privateKeyFile, ticketKeys: ticketKeys, offersHTTP2: offersHTTP2)
    }
}

/// What identifies a file's content cheaply: its device, inode, size and modification time.
struct FileStamp: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int

    /// Nil when the file cannot be examined.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = info.st_mtim.tv_sec
        modifiedNanoseconds = info.st_mtim.tv_nsec
    }
}
