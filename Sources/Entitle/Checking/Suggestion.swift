/// "Did you mean" suggestions: the closest candidate by edit distance, when it is close enough.
///
/// Edit distance costs the product of two lengths, so suggesting is bounded two ways: words
/// longer than ``maxWordLength`` get none (nobody misspells a 3 MB id by one letter), and every
/// call spends from a ``Budget`` of work, which a checker shares across a whole file so that a
/// catalog with tens of thousands of misspellings is still checked in linear time.
package enum Suggestion {
    /// Words longer than this (in Unicode scalars) get no suggestion.
    static let maxWordLength = 128

    /// Work allowed for suggestions, in units of one candidate looked at or one cell of an
    /// edit-distance table.
    package struct Budget {
        var remaining: Int

        /// For one call on its own (a command-line option, a receipt's key).
        static var perCall: Budget { Budget(remaining: 4_000_000) }
        /// For all the suggestions of one catalog file.
        package static var perFile: Budget { Budget(remaining: 20_000_000) }
    }

    /// The candidate closest to `word`, if it is within a third of the word's length (at least 1,
    /// at most 3 edits) and unambiguous enough to be worth saying.
    package static func closest<S: Sequence>(to word: String, in candidates: S) -> String? where S.Element == String {
        var budget = Budget.perCall
        return closest(to: word, in: candidates, budget: &budget)
    }

    /// Names people write for a value entitle spells otherwise (a store's own name for itself,
    /// another tool's): suggested whenever the value is a candidate, however far the spelling.
    static let aliases: [String: String] = [
        "google-play": "play", "googleplay": "play", "google_play": "play", "google": "play", "android": "play",
        "play-store": "play", "playstore": "play", "play_store": "play",
        "apple": "app-store", "appstore": "app-store", "app_store": "app-store", "apple-app-store": "app-store", "itunes": "app-store",
    ]

    /// ``closest(to:in:)``, spending from `budget`; `nil` once it is spent.
    static func closest<S: Sequence>(to word: String, in candidates: S, budget: inout Budget) -> String?
    where S.Element == String {
        guard word.utf8.count <= maxWordLength * 4 else { return nil }
        if let alias = aliases[word.lowercased()], candidates.contains(alias) { return alias }
        let wordScalars = Array(word.lowercased().unicodeScalars)
        guard wordScalars.count <= maxWordLength, budget.remaining > 0 else { return nil }
        let limit = min(3, max(1, wordScalars.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            budget.remaining -= 1
            guard budget.remaining > 0 else { return nil }
            // Lengths further apart than the limit cannot be within it.
            let length = candidate.unicodeScalars.count
            guard abs(length - wordScalars.count) <= limit else { continue }
            budget.remaining -= (length + 1) * (wordScalars.count + 1)
            guard budget.remaining > 0 else { return nil }
            let distance = editDistance(wordScalars, Array(candidate.lowercased().unicodeScalars))
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        if let best { return best.candidate }
        // A word that is another's singular or plural (`currency` for `currencies`) means it, however
        // many letters the English ending changes.
        let stem = Self.singular(word.lowercased())
        if stem.unicodeScalars.count >= 3 {
            for candidate in candidates {
                budget.remaining -= candidate.utf8.count
                guard budget.remaining > 0 else { return nil }
                if Self.singular(candidate.lowercased()) == stem, candidate.lowercased() != word.lowercased() { return candidate }
            }
        }
        // A word that is the start of exactly one candidate (`auto-renewable` for
        // `auto-renewable-subscription`) means that one.
        guard wordScalars.count >= 4 else { return nil }
        let lowered = word.lowercased()
        var prefixed: String?
        for candidate in candidates where candidate.lowercased().hasPrefix(lowered) {
            budget.remaining -= candidate.utf8.count
            guard prefixed == nil, budget.remaining > 0 else { return nil }
            prefixed = candidate
        }
        return prefixed
    }

    /// An English word in the singular as far as its ending tells: `currencies` -> `currency`,
    /// `features` -> `feature`; a word not ending in `s` (or in `ss`) as it is.
    static func singular(_ word: String) -> String {
        if word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if word.hasSuffix("s"), !word.hasSuffix("ss") { return String(word.dropLast()) }
        return word
    }

    /// `help: did you mean ...?` text, or `nil`.
    package static func help<S: Sequence>(for word: String, in candidates: S) -> String? where S.Element == String {
        closest(to: word, in: candidates).map { "did you mean `\($0)`?" }
    }

    /// ``help(for:in:)``, spending from `budget`.
    package static func help<S: Sequence>(for word: String, in candidates: S, budget: inout Budget) -> String?
    where S.Element == String {
        closest(to: word, in: candidates, budget: &budget).map { "did you mean `\($0)`?" }
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
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
