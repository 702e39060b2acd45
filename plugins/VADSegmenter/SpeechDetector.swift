import Foundation

/// Decides, per 10 ms frame, how likely it is that the frame is speech.
/// Implementations keep their own adaptive state; one instance per stream.
public protocol SpeechDetector {
    /// A probability-like score in 0...1 for one frame of mono samples.
    mutating func probability(of frame: UnsafeBufferPointer<Int16>) -> Float
}
