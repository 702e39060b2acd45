import Foundation
import ParleyCore
import Synchronization

/// Translations already made: in memory (least recently used first out)
/// and, when a folder is given, on disk, so a text translated in an earlier
/// run makes no request either. The key holds everything that decides the
/// answer: provider, model, languages, prompt and text; on disk it is the
/// SHA-256 of them. A disk entry that cannot be read is ignored (and
/// replaced by the next store), never an error.
final class TranslationCache: Sendable {
    struct Key: Hashable, Sendable {
        var provider: String
        var model: String
        var source: String
        var target: String
        var prompt: String
        var text: String

        var digest: String { SHA256.hex([provider, model, source, target, prompt, text].joined(separator: "\u{1F}")) }
    }

    private struct Entry {
        var text: String
        var storedAt: Date
        var lastUse: UInt64
    }

    private struct Storage {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    private struct DiskEntry: Codable {
        var text: String
        var stored: Double
    }

    /// Entries larger than this on disk are not read.
    static let maxEntryBytes = 256 * 1024

    private let capacity: Int
    private let storage = Mutex(Storage())

    init(capacity: Int) { self.capacity = capacity }

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
        guard let folder, let entry = Self.read(folder.appendingPathComponent(key.digest + ".json")),
              now.timeIntervalSince1970 - entry.stored <= ttl else { return nil }
        remember(entry.text, for: key, storedAt: Date(timeIntervalSince1970: entry.stored))
        return entry.text
    }

    func store(_ text: String, for key: Key, folder: URL?, now: Date = Date()) {
        remember(text, for: key, storedAt: now)
        guard let folder else { return }
        Self.write(DiskEntry(text: text, stored: now.timeIntervalSince1970), to: folder, name: key.digest + ".json")
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
    private static func write(_ entry: DiskEntry, to folder: URL, name: String) {
        guard let data = try? JSONEncoder().encode(entry) else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let temporary = folder.appendingPathComponent(".\(name).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary.path, folder.appendingPathComponent(name).path) != 0 {
            try? FileManager.default.removeItem(at: temporary)
        }
    }
}
