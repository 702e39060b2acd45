import GstKit
import ParleyCore
import ParleySpeech
import Testing

/// A provider kind made for the test: what an element declares.
private enum EchoProvider: String, ProviderKind {
    case local, acme, selfhosted, other

    var info: ProviderInfo {
        switch self {
        case .local: .local("Runs here")
        case .acme: .remote("acme", "Acme's API", baseURL: "https://api.acme.test/v1", key: "ACME_KEY", model: "echo-1")
        case .selfhosted: .remote("selfhosted", "Yours, at base-url", key: "ACME_KEY", keyRequired: false, model: "echo-1")
        case .other: .remote("other", "Another", baseURL: "https://other.test", key: "OTHER_KEY")
        }
    }
}

/// The chain's properties are made from the provider table: a provider
/// added to the table is named wherever the element's docs should name it.
@Suite struct ProviderTableTests {
    let specs = ProviderFallback.specs(for: EchoProvider.self, default: "local",
                                       wording: .init(who: "Who echoes", model: "Echo model", modelNote: "other: its own"))

    func blurb(_ name: String) -> String { specs.first { $0.name == name }?.blurb ?? "" }

    @Test func everyChainPropertyIsDeclaredOnce() {
        #expect(specs.map(\.name) == ["provider", "base-url", "model", "api-key-env", "timeout-ms", "max-retries",
                                      "breaker-failures", "breaker-cooldown-ms"])
    }

    @Test func blurbsNameEachProvidersDefaultsFromTheTable() {
        #expect(blurb("provider").hasPrefix("Who echoes: one of local, acme, selfhosted, other, or a comma-separated fallback chain"))
        #expect(blurb("base-url").hasPrefix("API base URL; empty = the provider's (acme: https://api.acme.test/v1, other: https://other.test); required for selfhosted;"))
        #expect(blurb("model").hasPrefix("Echo model; empty = echo-1 (acme, selfhosted); other: its own;"))
        #expect(blurb("api-key-env").hasPrefix("Environment variable holding the API key; empty = ACME_KEY (acme, selfhosted) or OTHER_KEY (other), sent to selfhosted only when set;"))
        #expect(EchoProvider.values.map(\.nick) == ["local", "acme", "selfhosted", "other"])
        #expect(EchoProvider.values.map(\.name) == ["Runs here", "Acme's API", "Yours, at base-url", "Another"])
    }

    @Test func aPositionsOwnEntriesWinOverTheTable() {
        let position = ChainPosition(provider: "acme", model: "echo-2", apiKeyEnv: "MY_KEY")
        #expect(EchoProvider.acme.model(position) == "echo-2")
        #expect(EchoProvider.acme.keyVariable(position) == "MY_KEY")
        #expect(EchoProvider.acme.model(ChainPosition(provider: "acme")) == "echo-1")
        #expect(EchoProvider.acme.keyVariable(ChainPosition(provider: "acme")) == "ACME_KEY")
    }

    @Test func theServiceIsBuiltFromTheTableAndTheKeyIsRequiredWhereItSays() throws {
        let acme = ChainPosition(provider: "acme")
        #expect(throws: ProviderSetupError("ACME_KEY is not set: export your acme API key in it, or use provider=local")) {
            try RemoteService.make(EchoProvider.acme.info, at: acme, maxRetries: 0, timeoutMs: 1000, environment: [:])
        }
        let service = try RemoteService.make(EchoProvider.acme.info, at: acme, maxRetries: 0, timeoutMs: 1000,
                                             environment: ["ACME_KEY": "k"])
        #expect(service.baseURL == "https://api.acme.test/v1")
        #expect(service.keyVariable == "ACME_KEY")
        #expect(throws: ProviderSetupError("provider=selfhosted needs base-url, e.g. base-url=http://127.0.0.1:8080/v1")) {
            try RemoteService.make(EchoProvider.selfhosted.info, at: ChainPosition(provider: "selfhosted"), maxRetries: 0,
                                   timeoutMs: 1000, environment: [:])
        }
    }

    @Test func chainSettingsAreReadAndWrittenInOnePlace() {
        var settings = ProviderFallback.Settings(provider: "local")
        #expect(ProviderFallback.set("timeout-ms", .int(5000), in: &settings))
        #expect(ProviderFallback.set("max-retries", .int(0), in: &settings))
        #expect(ProviderFallback.set("provider", .string(nil), in: &settings), "NULL goes back to the element's default")
        #expect(!ProviderFallback.set("voice", .string("x"), in: &settings), "not a chain property")
        #expect(ProviderFallback.property("timeout-ms", of: settings) == .int(5000))
        #expect(ProviderFallback.property("max-retries", of: settings) == .int(0))
        #expect(ProviderFallback.property("provider", of: settings) == .string("local"))
    }
}
