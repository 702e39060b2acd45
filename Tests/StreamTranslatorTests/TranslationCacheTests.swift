import Foundation
import Testing
@testable import StreamTranslator

/// The translations' disk cache stays bounded, and what it drops first is
/// what was used longest ago.
@Suite struct TranslationCacheTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cache-\(UUID().uuidString)")

    func key(_ text: String) -> TranslationCache.Key {
        .init(provider: "local", model: "", source: "en", target: "es", prompt: "", text: text)
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
    }

    @Test func theFolderKeepsTheMostRecentlyUsedEntriesUpToItsCapacity() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let writer = TranslationCache(capacity: 4, diskCapacity: 10, pruneEvery: 5)
        for index in 0..<10 {
            writer.store("uno \(index)", for: key("one \(index)"), folder: folder, now: start + Double(index))
        }
        let written = folder.appendingPathComponent(key("one 0").digest + ".json").path
        #expect(try FileManager.default.attributesOfItem(atPath: written)[.modificationDate] as? Date == start,
                "an entry's modification time is when it was stored")
        // A later run looks the first one up: used now, it is the last to go.
        let reader = TranslationCache(capacity: 4, diskCapacity: 10, pruneEvery: 5)
        #expect(reader.lookup(key("one 0"), ttl: 3600, folder: folder, now: start + 20) == "uno 0")
        // Pruned at the 1st, 6th, 11th ... store: the 11th finds 11 entries and deletes the one used longest ago.
        for index in 10..<15 {
            writer.store("uno \(index)", for: key("one \(index)"), folder: folder, now: start + 20 + Double(index))
        }
        #expect(try files().count == 14)
        let fresh = TranslationCache(capacity: 4, diskCapacity: 10, pruneEvery: 5)
        #expect(fresh.lookup(key("one 0"), ttl: 3600, folder: folder, now: start + 60) == "uno 0", "stored first, used at 20 s: kept")
        #expect(fresh.lookup(key("one 1"), ttl: 3600, folder: folder, now: start + 60) == nil, "stored at 1 s and never used")
        #expect(fresh.lookup(key("one 2"), ttl: 3600, folder: folder, now: start + 60) == "uno 2")

        // However many are stored, the folder never holds more than its capacity and the stores since a prune.
        for index in 15..<200 {
            writer.store("uno \(index)", for: key("one \(index)"), folder: folder, now: start + 100 + Double(index))
            #expect(try files().count <= 10 + 4)
        }
        #expect(fresh.lookup(key("one 199"), ttl: 3600, folder: folder, now: start + 400) == "uno 199")
    }

    @Test func aTemporaryFileACrashedWriterLeftIsDeleted() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let abandoned = folder.appendingPathComponent(".0123abcd.json.\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data("{\"te".utf8)))
        let now = Date()
        try FileManager.default.setAttributes([.modificationDate: now - 600], ofItemAtPath: abandoned)
        TranslationCache(capacity: 4).store("hola", for: key("hello"), folder: folder, now: now)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(try files().count == 1)
    }
}
