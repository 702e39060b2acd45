import ApertiumEngine
import AssistantEngine
import Foundation
import ParleyCore

/// `provider=local` in assistant mode: LocalAssistant answers in English,
/// and apertium translates the answer when the target language is another
/// one it has a pair for (otherwise the answer stays English, said in the name).
struct LocalAssistantTranslator: TextTranslator {
    let assistant = LocalAssistant()
    let answerTranslator: ApertiumTranslator?
    var name: String { "local (offline assistant\(answerTranslator.map { ", apertium \($0.mode)" } ?? ""))" }

    func translate(_ request: TranslationRequest,
                   onPartial: @escaping @Sendable (String) -> Void) async throws(ProviderFailure) -> Translation {
        let english = assistant.answer(request.text, previous: request.context.map(\.source))
        guard let engine = answerTranslator else { return Translation(text: english) }
        return try await engine.translation(of: english)
    }

    func shutdown() { answerTranslator?.shutdown() }
}
