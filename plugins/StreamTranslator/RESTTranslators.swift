import Foundation
import ParleyCore

/// The machine-translation APIs that answer in one JSON document: DeepL
/// (`/v2/translate`), Google Cloud Translation v2 and LibreTranslate
/// (`/translate`). Not streamed: the whole translation is the final.
struct RESTTranslator: RemoteTranslator {
    enum Vendor: Sendable {
        case deepl, google, libretranslate
    }

    var vendor: Vendor
    var service: RemoteService

    var apiKey: String { service.apiKey }
    var host: String { service.host }
    var name: String {
        switch vendor {
        case .deepl: "deepl (\(host))"
        case .google: "google (\(host))"
        case .libretranslate: "libretranslate (\(host))"
        }
    }

    /// DeepL: free keys (ending ":fx") belong to the free host.
    static func deeplBaseURL(key: String) -> String {
        key.hasSuffix(":fx") ? "https://api-free.deepl.com" : "https://api.deepl.com"
    }

    func translate(_ request: TranslationRequest,
                   onPartial: @escaping @Sendable (String) -> Void) async throws(ProviderFailure) -> Translation {
        let root = service.root
        let primary = LanguageNames.primary
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        let url: String
        let body: [String: Any]
        switch vendor {
        case .deepl:
            url = root + "/v2/translate"
            headers.append(("Authorization", "DeepL-Auth-Key \(apiKey)"))
            var fields: [String: Any] = ["text": [request.text], "target_lang": Self.tag(request.targetLanguage).deeplTarget]
            if !request.sourceLanguage.isEmpty { fields["source_lang"] = primary(request.sourceLanguage).uppercased() }
            body = fields
        case .google:
            url = root + "/language/translate/v2?key=" + (apiKey.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            body = ["q": [request.text], "source": Self.googleCode(request.sourceLanguage),
                    "target": Self.googleCode(request.targetLanguage), "format": "text"]
        case .libretranslate:
            url = root + "/translate"
            var fields: [String: Any] = ["q": request.text, "source": primary(request.sourceLanguage),
                                         "target": primary(request.targetLanguage), "format": "text"]
            if !apiKey.isEmpty { fields["api_key"] = apiKey }
            body = fields
        }
        var http = HTTPRequest(method: "POST", url: url, headers: headers, body: try? JSONSerialization.data(withJSONObject: body))
        http.timeout = service.timeout
        http.maxResponseBytes = HTTPRequest.maxTextResponseBytes
        let response: HTTPResponse, attempts: Int
        do throws(RetryingSender.Failure) {
            (response, attempts) = try await service.sender.send(http)
        } catch {
            // A 456 (DeepL's used-up quota) disables the provider: see ProviderError.disablesProvider.
            throw ProviderFailure(ProviderError.scrubbed(error.error, key: apiKey), attempts: error.attempts)
        }
        guard let text = Self.text(of: response.body, vendor: vendor) else {
            throw ProviderFailure(.decoding("expected \(Self.expected(vendor))"), attempts: attempts)
        }
        return Translation(text: text, attempts: attempts)
    }

    func shutdown() {}

    /// Google names Chinese scripts by region (`LanguageTag.googleTranslateCode`).
    static func googleCode(_ tag: String) -> String {
        LanguageTag(tag)?.googleTranslateCode ?? LanguageNames.primary(tag)
    }

    /// The target as a tag; one that does not parse is taken as English.
    static func tag(_ text: String) -> LanguageTag {
        LanguageTag(text) ?? LanguageTag("en")!
    }

    static func expected(_ vendor: Vendor) -> String {
        switch vendor {
        case .deepl: #"{"translations": [{"text": ...}]}"#
        case .google: #"{"data": {"translations": [{"translatedText": ...}]}}"#
        case .libretranslate: #"{"translatedText": ...}"#
        }
    }

    static func text(of body: Data, vendor: Vendor) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        switch vendor {
        case .deepl:
            return (object["translations"] as? [[String: Any]])?.first?["text"] as? String
        case .google:
            return ((object["data"] as? [String: Any])?["translations"] as? [[String: Any]])?.first?["translatedText"] as? String
        case .libretranslate:
            return object["translatedText"] as? String
        }
    }
}
