/// The member names a decoder knows for one kind of object, matched against the text without
/// scanning it first.
///
/// Objects of one kind usually list their members in the same order, so the reader guesses the
/// next name from the one before it (``JSONKeyTable/Prediction``) and compares the guess, closing
/// quote included, with one to four 8-byte loads. A wrong guess, an escape or the end of the text
/// falls back to scanning the token and looking it up by length and bytes: the guess only decides
/// how fast a name is found, never what it is.
///
/// Tables are built once per process and never freed (they are `static let`s of the decoders), so
/// they hold raw pointers and copying one costs no reference counting.
struct JSONKeyTable: @unchecked Sendable {
    /// Member names longer than this are not supported (the longest receipt key has 26 bytes).
    static let maxNameBytes = 31
    /// Names per table; a prediction packs one 4-bit successor per name plus one for the start.
    static let maxNames = 15
    /// The index of the slot that holds the guess for an object's first member.
    private static let startSlot = 15

    let names: [String]
    /// Per name, four words of its bytes followed by `"`, zero padded.
    private let words: UnsafeMutablePointer<UInt64>
    /// Per name, four masks covering the bytes of `words` that count.
    private let masks: UnsafeMutablePointer<UInt64>
    private let lengths: UnsafeMutablePointer<Int>

    init(_ names: [String]) {
        precondition(names.count <= Self.maxNames, "a key table holds at most \(Self.maxNames) names")
        self.names = names
        words = .allocate(capacity: names.count * 4)
        masks = .allocate(capacity: names.count * 4)
        lengths = .allocate(capacity: names.count)
        for (index, name) in names.enumerated() {
            let bytes = Array(name.utf8) + [UInt8(ascii: "\"")]
            precondition(bytes.count <= Self.maxNameBytes + 1 && name.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C },
                         "key table names are short plain ASCII")
            lengths[index] = name.utf8.count
            for word in 0..<4 {
                var value: UInt64 = 0, mask: UInt64 = 0
                for byte in 0..<8 where word * 8 + byte < bytes.count {
                    value |= UInt64(bytes[word * 8 + byte]) << (8 * UInt64(byte))
                    mask |= 0xFF << (8 * UInt64(byte))
                }
                words[index * 4 + word] = value
                masks[index * 4 + word] = mask
            }
        }
    }

    /// The guessed next member of each kind of object, learnt while reading one text.
    struct Prediction {
        /// 4 bits per slot: slot `i` guesses the member after name `i`, slot 15 the first member.
        fileprivate var successors: UInt64

        /// A prediction that first guesses the names in their declared order.
        init() {
            var successors: UInt64 = 0
            for slot in 0..<JSONKeyTable.maxNames {
                successors |= UInt64((slot + 1) % 16) << (4 * UInt64(slot))
            }
            self.successors = successors  // the start slot (15) guesses name 0
        }

        @inline(__always) fileprivate func guess(after slot: Int) -> Int {
            Int((successors >> (4 * UInt64(slot))) & 0xF)
        }

        @inline(__always) fileprivate mutating func learn(after slot: Int, _ index: Int) {
            let shift = 4 * UInt64(slot)
            successors = (successors & ~(0xF << shift)) | (UInt64(index) << shift)
        }
    }

    /// The start-of-object slot for ``JSONReader/readObject(keys:prediction:_:)``.
    @inline(__always) static var objectStart: Int { startSlot }

    /// The guess for the member after `previous` (``objectStart`` for the first member).
    @inline(__always)
    func guess(_ prediction: Prediction, after previous: Int) -> Int {
        let guess = prediction.guess(after: previous)
        return guess < names.count ? guess : 0
    }

    @inline(__always)
    func learn(_ prediction: inout Prediction, after previous: Int, _ index: Int) {
        prediction.learn(after: previous, index)
    }

    /// Whether name `index` followed by its closing quote starts at `position` of `bytes`, when the
    /// words to compare lie inside the text; `false` otherwise (the caller then scans).
    @inline(__always)
    func matches(_ index: Int, at position: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        let wordCount = (lengths[index] + 8) >> 3
        guard position + wordCount * 8 <= bytes.count else { return false }
        let base = index * 4
        // Most wrong names differ in their first word: reject them after one load.
        let first = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        guard (first & masks[base]) == words[base] else { return false }
        var difference: UInt64 = 0
        for word in 1..<max(wordCount, 1) {
            let loaded = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + word * 8, as: UInt64.self))
            difference |= (loaded & masks[base + word]) ^ words[base + word]
        }
        return difference == 0
    }

    /// The index of the name (followed by its closing quote) that starts at `position`, trying
    /// `guess` first and then every other name; `nil` when none matches there in place (an unknown
    /// or escaped name, or one too close to the end of the text), and the caller scans.
    @inline(__always)
    func match(at position: Int, in bytes: UnsafeRawBufferPointer, guess: Int) -> Int? {
        if matches(guess, at: position, in: bytes) { return guess }
        for index in 0..<names.count where index != guess && matches(index, at: position, in: bytes) {
            return index
        }
        return nil
    }

    /// The length in bytes of name `index`.
    @inline(__always)
    func length(_ index: Int) -> Int { lengths[index] }

    /// The index of a scanned member name, or `nil` when it is not one of the table's.
    func index(of token: JSONString) -> Int? {
        if token.hasEscapes {
            let text = token.string
            return names.firstIndex(of: text)
        }
        let count = token.raw.count
        for index in 0..<names.count where lengths[index] == count {
            let base = index * 4
            var equal = true
            for position in 0..<count {
                let expected = UInt8(truncatingIfNeeded: words[base + position >> 3] >> (8 * UInt64(position & 7)))
                if token.raw[position] != expected {
                    equal = false
                    break
                }
            }
            if equal { return index }
        }
        return nil
    }
}
