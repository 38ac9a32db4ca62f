/// The member names a decoder knows for one kind of object, matched against the text without
/// scanning it first.
///
/// Objects of one kind usually list their members in the same order, or in one of a few orders
/// (optional members present or not), so the reader guesses the next name from the one before it
/// (``JSONKeyTable/Prediction`` keeps the last two names seen after each) and compares a guess,
/// closing quote included, with one to four 8-byte loads. Wrong guesses, an escape or the end of
/// the text fall back to trying every name and then to scanning the token and looking it up: the
/// guesses only decide how fast a name is found, never what it is.
///
/// Tables are built once per process and never freed (they are `static let`s of the decoders), so
/// they hold raw pointers only and copying one costs no reference counting.
struct JSONKeyTable: @unchecked Sendable {
    /// Member names longer than this are not supported (the longest receipt key has 26 bytes).
    static let maxNameBytes = 31
    /// Names per table; a prediction holds a byte per name, with slot 63 for an object's start.
    static let maxNames = 63
    /// The slot that holds the guesses for an object's first member.
    static let objectStart = 63

    /// The number of names.
    let count: Int
    /// Per name, four words of its bytes followed by `"`, zero padded.
    private let words: UnsafeMutablePointer<UInt64>
    /// Per name, four masks covering the bytes of `words` that count.
    private let masks: UnsafeMutablePointer<UInt64>
    private let lengths: UnsafeMutablePointer<Int>

    init(_ names: [String]) {
        precondition(names.count <= Self.maxNames, "a key table holds at most \(Self.maxNames) names")
        count = names.count
        words = .allocate(capacity: names.count * 4)
        masks = .allocate(capacity: names.count * 4)
        lengths = .allocate(capacity: names.count)
        for (index, name) in names.enumerated() {
            let bytes = Array(name.utf8) + [UInt8(ascii: "\"")]
            precondition(
                bytes.count <= Self.maxNameBytes + 1 && name.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C },
                "key table names are short plain ASCII")
            lengths[index] = name.utf8.count
            for word in 0..<4 {
                var value: UInt64 = 0
                var mask: UInt64 = 0
                for byte in 0..<8 where word * 8 + byte < bytes.count {
                    value |= UInt64(bytes[word * 8 + byte]) << (8 * UInt64(byte))
                    mask |= 0xFF << (8 * UInt64(byte))
                }
                words[index * 4 + word] = value
                masks[index * 4 + word] = mask
            }
        }
    }

    /// The guessed next members of one kind of object, learnt while reading one text.
    struct Prediction {
        /// Slot `i` holds the name last seen after name `i` (slot 63: first).
        fileprivate var recent: Slots
        /// The same, for the name seen there before that one.
        fileprivate var earlier: Slots

        /// A prediction that first guesses the names in their declared order: slot `i` guesses
        /// name `i + 1`, and the start slot (63) name 0.
        init() {
            var order = Slots()
            for slot in 0..<JSONKeyTable.objectStart { order[slot] = UInt8(slot + 1) }
            order[JSONKeyTable.objectStart] = 0
            recent = order
            earlier = order
        }
    }

    /// 64 one-byte slots, read and written in place where the prediction lives (a vector type
    /// would be copied to the stack for each byte read).
    struct Slots {
        private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

        subscript(slot: Int) -> UInt8 {
            @inline(__always) mutating get {
                withUnsafeMutableBytes(of: &storage) { $0[slot & 63] }
            }
            @inline(__always) set {
                withUnsafeMutableBytes(of: &storage) { $0[slot & 63] = newValue }
            }
        }
    }

    /// The index of the name (followed by its closing quote) that starts at `position`, the
    /// member after name `previous` (``objectStart`` for the first): the two guesses first, then
    /// every name; `nil` when none matches there in place (an unknown or escaped name, or one too
    /// close to the end of the text), and the caller scans. Updates `prediction`.
    @inline(__always)
    func match(
        at position: Int, in bytes: UnsafeRawBufferPointer, after previous: Int,
        prediction: inout Prediction
    ) -> Int? {
        let slot = previous & 63
        let first = Int(prediction.recent[slot])
        if first < count, matches(first, at: position, in: bytes) { return first }
        let second = Int(prediction.earlier[slot])
        var found: Int?
        if second < count, matches(second, at: position, in: bytes) {
            found = second
        } else {
            for index in 0..<count where matches(index, at: position, in: bytes) {
                found = index
                break
            }
        }
        if let found { learn(&prediction, after: previous, found) }
        return found
    }

    /// Records that name `index` followed name `previous`.
    @inline(__always)
    func learn(_ prediction: inout Prediction, after previous: Int, _ index: Int) {
        let slot = previous & 63
        let name = UInt8(truncatingIfNeeded: index)
        guard prediction.recent[slot] != name else { return }
        prediction.earlier[slot] = prediction.recent[slot]
        prediction.recent[slot] = name
    }

    /// Whether name `index` followed by its closing quote starts at `position` of `bytes`, when the
    /// words to compare lie inside the text; `false` otherwise (the caller then scans).
    @inline(__always)
    func matches(_ index: Int, at position: Int, in bytes: UnsafeRawBufferPointer) -> Bool {
        // Offsets and lengths are small (a text is at most ``ReceiptLimits/maxBytes``, a name 31
        // bytes), so wrapping arithmetic cannot wrap here; it spares the overflow branches.
        let wordCount = (lengths[index] &+ 8) &>> 3
        guard position &+ wordCount &* 8 <= bytes.count else { return false }
        let base = index &* 4
        // Most wrong names differ in their first word: reject them after one load.
        let first = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
        guard (first & masks[base]) == words[base] else { return false }
        var difference: UInt64 = 0
        var word = 1
        while word < wordCount {
            let loaded = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position &+ word &* 8, as: UInt64.self))
            difference |= (loaded & masks[base &+ word]) ^ words[base &+ word]
            word &+= 1
        }
        return difference == 0
    }

    /// The length in bytes of name `index`.
    @inline(__always)
    func length(_ index: Int) -> Int { lengths[index] }

    /// The index of a scanned member name, or `nil` when it is not one of the table's.
    func index(of token: JSONString) -> Int? {
        guard token.hasEscapes else { return index(ofBytes: token.raw) }
        var text = token.string
        return text.withUTF8 { index(ofBytes: UnsafeRawBufferPointer($0)) }
    }

    private func index(ofBytes bytes: UnsafeRawBufferPointer) -> Int? {
        for index in 0..<count where lengths[index] == bytes.count {
            let base = index * 4
            var equal = true
            for position in 0..<bytes.count {
                let expected = UInt8(truncatingIfNeeded: words[base + position >> 3] >> (8 * UInt64(position & 7)))
                if bytes[position] != expected {
                    equal = false
                    break
                }
            }
            if equal { return index }
        }
        return nil
    }
}
