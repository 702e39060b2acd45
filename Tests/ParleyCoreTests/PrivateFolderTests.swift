import Foundation
import ParleyCore
import Testing

@Suite struct PrivateFolderTests {
    @Test func eachFolderIsNewUnguessableAndOnlyItsUsersToEnter() throws {
        let first = try PrivateFolder.make(prefix: "parley-test")
        let second = try PrivateFolder.make(prefix: "parley-test")
        defer { for folder in [first, second] { try? FileManager.default.removeItem(at: folder) } }
        #expect(first != second)
        for folder in [first, second] {
            #expect(folder.deletingLastPathComponent().standardizedFileURL == FileManager.default.temporaryDirectory.standardizedFileURL)
            let name = folder.lastPathComponent
            #expect(name.hasPrefix("parley-test-") && name.count == "parley-test-".count + 6, "\(name)")
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.path)
            #expect(attributes[.type] as? FileAttributeType == .typeDirectory)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        }
    }

    @Test func aParentThatCannotHoldItIsNamed() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("parley-no-such-\(UUID().uuidString)")
        #expect {
            try PrivateFolder.make(prefix: "parley-test", in: missing)
        } throws: { error in
            "\(error)".contains(missing.path) && "\(error)".contains("No such file or directory")
        }
    }
}
