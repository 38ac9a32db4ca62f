/// "Did you mean" suggestions: the closest candidate by edit distance, when it is close enough.
enum Suggestion {
    /// The candidate closest to `word`, if it is within a third of the word's length (at least 1,
    /// at most 3 edits) and unambiguous enough to be worth saying.
    static func closest<S: Sequence>(to word: String, in candidates: S) -> String? where S.Element == String {
        let limit = min(3, max(1, word.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// `help: did you mean ...?` text, or `nil`.
    static func help<S: Sequence>(for word: String, in candidates: S) -> String? where S.Element == String {
        closest(to: word, in: candidates).map { "did you mean `\($0)`?" }
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
