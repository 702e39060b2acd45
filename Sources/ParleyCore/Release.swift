/// Parley's version and where it lives: the one place `parley --version`,
/// the plugin's gst-inspect page (version, origin) and every element's
/// documentation link read them from.
public enum Release {
    /// Semantic version of this source tree; tagged as `v<version>` when released.
    public static let version = "0.7.0"
    /// The project's repository, also the URL SwiftPM users depend on.
    public static let homepage = "https://github.com/parley-speech/parley"
    /// The reference page of messages, events and meta fields.
    public static let referencePage = "\(homepage)/blob/main/docs/reference.md"

    /// What gst-inspect-1.0 shows as an element's "Documentation" line:
    /// its section of the reference page.
    public static func documentation(for factoryName: String) -> String {
        "\(referencePage)#\(factoryName)"
    }
}
