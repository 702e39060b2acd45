import Foundation
import ParleyCore
import Synchronization

/// Translations already made: in memory (least recently used first out)
/// and, when a folder is given, on disk, so a text translated in an earlier
/// run makes no request either. The key holds everything that decides the
/// answer: provider, model, languages, prompt, text and any context sent
/// with it; on disk it is the SHA-256 of them. A disk entry that cannot be read is ignored (and
/// replaced by the next store), never an error.
///
/// The folder is bounded: each file's modification time is when it was
/// stored or last answered a lookup, and every `pruneEvery` stores (the
/// first of a process included) the files past `diskCapacity` are deleted,
/// least recently used first, with any half-written temporary file a
/// crashed writer left. A live translator makes an entry per utterance;
/// without this the folder would only grow.
final class TranslationCache: Sendable {
    struct Key: Hashable, Sendable {
        var provider: String
        var model: String
        var source: String
        var target: String
        var prompt: String
        var text: String
        /// The earlier pairs sent with the text (`context-segments`), one
        /// string: with them the answer is made for that context, and
        /// another context may well want another (a pronoun's gender).
        var context: String = ""

        /// Without context, the digest of entries made before context counted.
        var digest: String {
            SHA256.hex(([provider, model, source, target, prompt, text] + (context.isEmpty ? [] : [context])).joined(separator: "\u{1F}"))
        }
    }

    private struct Entry {
        var text: String
        var storedAt: Date
        var lastUse: UInt64
    }

    private struct Storage {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
        /// Disk stores left before the folder is pruned again.
        var storesUntilPrune = 0
    }

    private struct DiskEntry: Codable {
        var text: String
        var stored: Double
    }

    /// Entries larger than this on disk are not read.
    static let maxEntryBytes = 256 * 1024

    /// Entries on disk at most: 10,000 of a few hundred bytes each.
    static let DEFAULT_DISK_CAPACITY = 10_000
    static let DEFAULT_PRUNE_EVERY = 256
    /// A temporary file older than this is a crashed writer's.
    static let abandonedAfter: TimeInterval = 60

    private let capacity: Int
    private let diskCapacity: Int
    private let pruneEvery: Int
    private let storage = Mutex(Storage())

    init(capacity: Int, diskCapacity: Int = DEFAULT_DISK_CAPACITY, pruneEvery: Int = DEFAULT_PRUNE_EVERY) {
        self.capacity = capacity
        self.diskCapacity = max(1, diskCapacity)
        self.pruneEvery = max(1, pruneEvery)
    }

    /// `${XDG_CACHE_HOME:-~/.cache}/parley/translations`.
    static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("parley/translations")
    }

    func lookup(_ key: Key, ttl: TimeInterval, folder: URL?, now: Date = Date()) -> String? {
        let inMemory: String? = storage.withLock { storage in
            guard let entry = storage.entries[key] else { return nil }
            guard now.timeIntervalSince(entry.storedAt) <= ttl else {
                storage.entries[key] = nil
                return nil
            }
            storage.clock += 1
            storage.entries[key]?.lastUse = storage.clock
            return entry.text
        }
        if let inMemory { return inMemory }
        let file = folder?.appendingPathComponent(key.digest + ".json")
        guard let file, let entry = Self.read(file), now.timeIntervalSince1970 - entry.stored <= ttl else { return nil }
        remember(entry.text, for: key, storedAt: Date(timeIntervalSince1970: entry.stored))
        // Used now: the last to go when the folder is pruned (its age for the TTL stays in the entry).
        try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: file.path)
        return entry.text
    }

    func store(_ text: String, for key: Key, folder: URL?, now: Date = Date()) {
        remember(text, for: key, storedAt: now)
        guard let folder else { return }
        Self.write(DiskEntry(text: text, stored: now.timeIntervalSince1970), to: folder, name: key.digest + ".json", at: now)
        let prune = storage.withLock { storage in
            storage.storesUntilPrune -= 1
            guard storage.storesUntilPrune <= 0 else { return false }
            storage.storesUntilPrune = pruneEvery
            return true
        }
        if prune { Self.prune(folder, keeping: diskCapacity, now: now) }
    }

    /// Deletes the least recently used entries past `keeping`, and
    /// temporary files abandoned by a writer that never renamed them.
    static func prune(_ folder: URL, keeping: Int, now: Date) {
        let files = FileManager.default
        guard let names = try? files.contentsOfDirectory(atPath: folder.path) else { return }
        var entries: [(used: Date, path: String)] = []
        for name in names {
            let path = folder.appendingPathComponent(name).path
            guard let used = (try? files.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { continue }
            if name.hasPrefix(".") && name.contains(".json.") {
                if now.timeIntervalSince(used) > abandonedAfter { try? files.removeItem(atPath: path) }
            } else if name.hasSuffix(".json") {
                entries.append((used, path))
            }
        }
        guard entries.count > keeping else { return }
        for entry in entries.sorted(by: { $0.used < $1.used }).prefix(entries.count - keeping) {
            try? files.removeItem(atPath: entry.path)
        }
    }

    private func remember(_ text: String, for key: Key, storedAt: Date) {
        storage.withLock { storage in
            storage.clock += 1
            storage.entries[key] = Entry(text: text, storedAt: storedAt, lastUse: storage.clock)
            if storage.entries.count > capacity,
               let oldest = storage.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                storage.entries[oldest] = nil
            }
        }
    }

    private static func read(_ file: URL) -> DiskEntry? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxEntryBytes + 1), data.count <= maxEntryBytes else { return nil }
        return try? JSONDecoder().decode(DiskEntry.self, from: data)
    }

    /// Written to a temporary file and renamed, so a reader never sees half an entry.
    private static func write(_ entry: DiskEntry, to folder: URL, name: String, at now: Date) {
        guard let data = try? JSONEncoder().encode(entry) else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let temporary = folder.appendingPathComponent(".\(name).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data,
                                             attributes: [.posixPermissions: 0o600, .modificationDate: now]) else { return }
        if rename(temporary.path, folder.appendingPathComponent(name).path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
        }
    }
}
