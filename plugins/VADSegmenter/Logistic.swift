import Foundation

/// σ(x) = 1 / (1 + e^−x): a logit as a probability. The detector's heads
/// and the recurrent head's gates share this one definition, as training's
/// `sigmoid` does.
@inline(__always)
func logistic(_ x: Float) -> Float { 1 / (1 + exp(-x)) }
