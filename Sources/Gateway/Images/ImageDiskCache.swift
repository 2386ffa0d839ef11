import Crypto
import Dispatch
import Foundation
import GatewayModels
import GatewaySupport

/// The disk tier: one file per image under `directory` (sources and rendered variants),
/// named by the SHA-256 of its ``ImageVariant``'s description (a source's is its URL),
/// least recently used out first once the files pass `budget` bytes.
///
/// Every read, write and delete runs on one serial queue, never on an event loop; callers
/// hop back to their loop. Files are written whole to a temporary name and then renamed,
/// so a reader (or a restart) sees a complete file or none. The index is rebuilt from the
/// directory at start (recency from the files' modification times); temporary leftovers,
/// partial files and foreign files are removed, and a file whose checksum fails when read
/// is removed and counts as a miss.
final class ImageDiskCache: Sendable {
    let directory: URL
    private let queue = DispatchQueue(label: "open-market-gateway.image-disk")
    /// File name → file size. Changed only on `queue` (and in init).
    private let index: Locked<LRUStore<String, Int>>
    /// Verified files kept open, by variant, at most `maxOpenFiles` (least recently used closed
    /// first). Added to only on `queue`; read by loops (`openFile`).
    let openFiles = OpenImageFiles(capacity: maxOpenFiles)
    static let maxOpenFiles = 1024

    /// Opens (creating it when needed) `directory` and rebuilds the index from it. Runs at
    /// start, before any loop serves.
    init(directory: String, budget: Int) throws {
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        var store = LRUStore<String, Int>(budget: budget)
        for (name, size) in Self.scan(self.directory) {
            for evicted in store.insert(name, size, cost: size) { Self.remove(evicted, in: self.directory) }
            if store.get(name) == nil { Self.remove(name, in: self.directory) }
        }
        index = Locked(store)
    }

    /// The open, verified file of `variant`, when the tier has one open. Any thread (a loop
    /// answering a hit): one short lock, no disk access, no allocation.
    func openFile(_ variant: ImageVariant) -> OpenImageFile? {
        openFiles.get(variant)
    }

    /// Counts a hit served from `file` as use, so the tier's least-recently-used order
    /// follows what is served (the file's modification time, the order after a restart, is
    /// refreshed only by reads on the disk queue). Any thread; no disk access.
    func noteHit(_ file: OpenImageFile) {
        index.withLock { _ = $0.get(file.name) }
    }

    /// Keeps `path` open for `variant` once its bytes were verified. On the disk queue.
    private func keepOpen(_ variant: ImageVariant, name: String, path: String, image: CachedPage, bodyLength: Int) {
        let heads = CachedPage(
            status: 200, contentType: image.contentType, identity: [], gzip: nil, storedAt: .now,
            timeToLive: image.timeToLive, etag: image.etag)
        guard let file = OpenImageFile(path: path, name: name, bodyOffset: ImageFileFormat.headerSize, bodyLength: bodyLength, image: heads)
        else { return }
        openFiles.insert(file, variant: variant, name: name)
    }

    private func forget(_ name: String) {
        openFiles.remove(name: name)
    }

    /// Intact-looking entries (header and size agree), oldest first; everything else in the
    /// directory is removed.
    private static func scan(_ directory: URL) -> [(String, Int)] {
        let manager = FileManager.default
        let names = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        var entries: [(name: String, size: Int, modified: Date)] = []
        for name in names {
            let path = directory.appendingPathComponent(name).path
            guard isEntryName(name), let attributes = try? manager.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let size = (attributes[.size] as? NSNumber)?.intValue,
                let handle = FileHandle(forReadingAtPath: path)
            else {
                try? manager.removeItem(atPath: path)
                continue
            }
            let header = (try? handle.read(upToCount: ImageFileFormat.headerSize)).map { [UInt8]($0) } ?? []
            try? handle.close()
            guard let length = ImageFileFormat.bodyLength(header: header), size == ImageFileFormat.headerSize + length else {
                try? manager.removeItem(atPath: path)
                continue
            }
            entries.append((name, size, attributes[.modificationDate] as? Date ?? .distantPast))
        }
        return entries.sorted { $0.modified < $1.modified }.map { ($0.name, $0.size) }
    }

    /// 64 lower-case hex digits.
    private static func isEntryName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func fileName(for variant: ImageVariant) -> String {
        SHA256.hash(data: Array(variant.description.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Reads `variant`'s image on the disk queue; `completion` runs there with it, or nil (not
    /// stored, or dropped because the file was corrupt).
    func read(_ variant: ImageVariant, completion: @escaping @Sendable (CachedPage?) -> Void) {
        queue.async { [self] in
            let name = Self.fileName(for: variant)
            guard index.withLock({ $0.get(name) }) != nil else { return completion(nil) }
            let path = directory.appendingPathComponent(name).path
            // Verified when it entered the tier: read the body from the open file, unhashed.
            if let open = openFile(variant), let body = open.readBody() {
                return completion(
                    CachedPage(
                        status: 200, contentType: open.image.contentType, identity: body, gzip: nil, storedAt: .now,
                        timeToLive: open.image.timeToLive, etag: open.image.etag))
            }
            guard let data = FileManager.default.contents(atPath: path), let (type, body) = ImageFileFormat.decode([UInt8](data)) else {
                index.withLock { _ = $0.remove(name) }
                forget(name)
                Self.remove(name, in: directory)
                return completion(nil)
            }
            // Recency that survives a restart.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
            let image = CachedPage(
                status: 200, contentType: type, identity: body, gzip: nil, storedAt: .now,
                timeToLive: .seconds(31_536_000))
            // Verified just now: later hits send it from the open file.
            if variant.keepsFileOpen, openFile(variant) == nil { keepOpen(variant, name: name, path: path, image: image, bodyLength: body.count) }
            completion(image)
        }
    }

    /// Writes `image` for `variant` on the disk queue (temporary file, then rename) and evicts
    /// the least recently used files past the budget.
    func write(_ image: CachedPage, for variant: ImageVariant) {
        queue.async { [self] in
            guard let file = ImageFileFormat.encode(image.identity, contentType: image.contentType) else { return }
            let name = Self.fileName(for: variant)
            let manager = FileManager.default
            let temporary = directory.appendingPathComponent("\(name).\(UInt64.random(in: 0...UInt64.max)).tmp")
            let final = directory.appendingPathComponent(name)
            do {
                try Data(file).write(to: temporary)
                if manager.fileExists(atPath: final.path) { try manager.removeItem(at: final) }
                try manager.moveItem(at: temporary, to: final)
            } catch {
                try? manager.removeItem(at: temporary)
                return
            }
            let evicted = index.withLock { store in
                let evicted = store.insert(name, file.count, cost: file.count)
                return store.get(name) == nil ? evicted + [name] : evicted
            }
            for gone in evicted {
                forget(gone)
                Self.remove(gone, in: directory)
            }
            // The bytes were hashed as they were encoded: the file is verified.
            if !evicted.contains(name) {
                forget(name)
                if variant.keepsFileOpen { keepOpen(variant, name: name, path: final.path, image: image, bodyLength: image.identity.count) }
            }
        }
    }

    /// Deletes every file of the tier on the disk queue, then calls `completion` there with
    /// how many there were.
    func removeAll(completion: @escaping @Sendable (Int) -> Void) {
        queue.async { [self] in
            let names = index.withLock { store in
                var names: [String] = []
                _ = store.removeAll { name in
                    names.append(name)
                    return true
                }
                return names
            }
            for name in names {
                forget(name)
                Self.remove(name, in: directory)
            }
            completion(names.count)
        }
    }

    /// Waits until every read and write queued so far has run (tests, shutdown).
    func drain() { queue.sync {} }

    private static func remove(_ name: String, in directory: URL) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }

    /// Bytes of the indexed files, and how many there are.
    var bytes: Int { index.withLock { $0.totalCost } }
    var count: Int { index.withLock { $0.count } }
}
