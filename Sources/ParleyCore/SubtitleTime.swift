/// "HH:MM:SS,mmm" (SubRip) or "HH:MM:SS.mmm" (WebVTT).
public enum SubtitleTime {
    public static func format(milliseconds: Int, separator: Character) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let m = max(0, milliseconds)
        return "\(pad(m / 3_600_000, 2)):\(pad(m / 60_000 % 60, 2)):\(pad(m / 1000 % 60, 2))\(separator)\(pad(m % 1000, 3))"
    }
}
