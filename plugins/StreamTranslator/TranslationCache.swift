import Foundation
import Synchronization

/// Translations already made, least recently used first out. The key holds
/// everything that decides the answer: provider, model, languages, prompt
/// and text.
final class TranslationCache: Sendable {
    struct Key: Hashable, Sendable {
        var provider: String
        var model: String
        var source: String
        var target: String
        var prompt: String
        var text: String
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

    private let capacity: Int
    private let storage = Mutex(Storage())

    init(capacity: Int) { self.capacity = capacity }

    func lookup(_ key: Key, ttl: TimeInterval, now: Date = Date()) -> String? {
        storage.withLock { storage in
            guard let entry = storage.entries[key] else { return nil }
            guard now.timeIntervalSince(entry.storedAt) <= ttl else {
                storage.entries[key] = nil
                return nil
            }
            storage.clock += 1
            storage.entries[key]?.lastUse = storage.clock
            return entry.text
        }
    }

    func store(_ text: String, for key: Key, now: Date = Date()) {
        storage.withLock { storage in
            storage.clock += 1
            storage.entries[key] = Entry(text: text, storedAt: now, lastUse: storage.clock)
            if storage.entries.count > capacity,
               let oldest = storage.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                storage.entries[oldest] = nil
            }
        }
    }
}
