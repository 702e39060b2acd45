/// An option's old spelling: it still works, hidden from help, and says
/// once what to write instead. Each command folds its old spellings into
/// the new ones in `validate()`.
enum Deprecated {
    /// `new` = `old`'s value when the old spelling was given (and the new one was not).
    static func fold<T>(_ old: T?, into new: inout T, _ oldName: String, _ newName: String) {
        guard let old else { return }
        printError("note: \(oldName) is deprecated; write \(newName)")
        new = old
    }

    /// The same for an option that has no default (nil until given).
    static func fold<T>(_ old: T?, into new: inout T?, _ oldName: String, _ newName: String) {
        fold(old.map(Optional.some), into: &new, oldName, newName)
    }
}
