import Dispatch
import Foundation

/// Times an operation the way the benchmark reports it: calibrated batches, repeated rounds, the
/// median of the rounds.
struct Stopwatch {
    /// Rounds per figure; the reported figure is their median.
    var rounds: Int
    /// Minimum time of one round, in seconds.
    var roundTime: Double

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Median seconds per call of `body`.
    func secondsPerCall(_ body: @escaping () -> Int) -> Double {
        compare([body])[0]
    }

    /// Median seconds per call of each body, measured in alternating rounds (A, B, A, B, ...) so
    /// that a disturbance of the machine lands on every side of a comparison alike.
    func compare(_ bodies: [() -> Int]) -> [Double] {
        let batches = bodies.map(calibrate)
        var samples = [[Double]](repeating: [], count: bodies.count)
        for _ in 0..<rounds {
            for (index, body) in bodies.enumerated() {
                let start = Stopwatch.now()
                for _ in 0..<batches[index] { Sink.consume(body()) }
                samples[index].append(Double(Stopwatch.now() - start) / 1e9 / Double(batches[index]))
            }
        }
        return samples.map(Stopwatch.median)
    }

    /// A batch size that makes one round of `body` last about `roundTime`.
    private func calibrate(_ body: () -> Int) -> Int {
        var batch = 1
        while true {
            let start = Stopwatch.now()
            for _ in 0..<batch { Sink.consume(body()) }
            let elapsed = Double(Stopwatch.now() - start) / 1e9
            if elapsed >= roundTime / 4 || batch >= 1 << 24 {
                return max(1, Int(Double(batch) * roundTime / max(elapsed, 1e-9)))
            }
            batch *= 4
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}

/// Keeps results alive so the optimizer cannot drop the work that produced them.
enum Sink {
    nonisolated(unsafe) static var total = 0

    @inline(never)
    static func consume(_ value: Int) {
        total &+= value
    }
}
