import Entitle

/// A place in a text as the Language Server Protocol gives it: a 0-based line and a 0-based
/// character offset in UTF-16 code units (the protocol's default position encoding).
struct TextPosition: Hashable, Sendable {
    var line: Int
    var character: Int
}

/// Converts between byte offsets of a UTF-8 text, the project's 1-based line and column (in Unicode
/// scalars, as ``LineTable`` counts them) and LSP positions (0-based, UTF-16 code units).
///
/// Counts of scalars and UTF-16 units are kept per block of ``blockSize`` bytes, so each
/// conversion costs a binary search and at most one block of bytes however long the line: a
/// minified catalog with thousands of diagnostics is converted in time linear in its size.
struct TextPositions {
    let bytes: [UInt8]
    private let lineStarts: [Int]
    /// Scalars (bytes that are not UTF-8 continuation bytes) before the start of each block.
    private let scalarsBefore: [Int]
    /// UTF-16 code units before the start of each block: a scalar of four UTF-8 bytes is two units
    /// (a surrogate pair), every other scalar one.
    private let unitsBefore: [Int]
    private static let blockSize = 64

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        var scalars: [Int] = []
        var units: [Int] = []
        scalars.reserveCapacity(bytes.count / Self.blockSize + 2)
        units.reserveCapacity(bytes.count / Self.blockSize + 2)
        var scalarCount = 0
        var unitCount = 0
        for (index, byte) in bytes.enumerated() {
            if index % Self.blockSize == 0 {
                scalars.append(scalarCount)
                units.append(unitCount)
            }
            if LineTable.endsLine(bytes, at: index) { starts.append(index + 1) }
            scalarCount += Self.scalarWeight(byte)
            unitCount += Self.unitWeight(byte)
        }
        scalars.append(scalarCount)
        units.append(unitCount)
        lineStarts = starts
        scalarsBefore = scalars
        unitsBefore = units
    }

    /// 1 for the first byte of a scalar (and for a stray byte), 0 for a continuation byte.
    @inline(__always) private static func scalarWeight(_ byte: UInt8) -> Int {
        byte & 0xC0 == 0x80 ? 0 : 1
    }

    /// The UTF-16 units of the scalar a byte starts: 2 for a four-byte lead byte.
    @inline(__always) private static func unitWeight(_ byte: UInt8) -> Int {
        if byte & 0xC0 == 0x80 { return 0 }
        return byte >= 0xF0 ? 2 : 1
    }

    /// The number of lines (a text ending in a newline has an empty last line).
    var lineCount: Int { lineStarts.count }

    /// The offset where a 0-based line starts (clamped to the text).
    func lineStart(_ line: Int) -> Int {
        if line < 0 { return 0 }
        if line >= lineStarts.count { return bytes.count }
        return lineStarts[line]
    }

    /// The offset where a 0-based line's text ends, before its `\n` or `\r\n`.
    func lineEnd(_ line: Int) -> Int {
        if line < 0 { return lineEnd(0) }
        if line >= lineStarts.count { return bytes.count }
        var end = line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : bytes.count
        if end > lineStarts[line], bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return end
    }

    /// The 0-based line that holds an offset.
    func line(of offset: Int) -> Int {
        let offset = max(0, min(offset, bytes.count))
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = low + (high - low + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The LSP position of a byte offset (clamped to the text).
    func position(of offset: Int) -> TextPosition {
        let offset = max(0, min(offset, bytes.count))
        let line = line(of: offset)
        let character =
            count(before: offset, table: unitsBefore, weight: Self.unitWeight)
            - count(before: lineStarts[line], table: unitsBefore, weight: Self.unitWeight)
        return TextPosition(line: line, character: character)
    }

    /// The byte offset of an LSP position. A character past the end of its line means the end of
    /// the line, a line past the end the end of the text (as the protocol says); a position inside
    /// a surrogate pair moves to the end of its scalar.
    func offset(of position: TextPosition) -> Int {
        if position.line < 0 { return 0 }
        if position.line >= lineStarts.count { return bytes.count }
        return offset(inLine: position.line, advancing: max(0, position.character), table: unitsBefore, weight: Self.unitWeight)
    }

    /// The byte offset of a 1-based line and column in Unicode scalars (a ``SourceLocation``).
    func offset(line: Int, column: Int) -> Int {
        let line = line - 1
        if line < 0 { return 0 }
        if line >= lineStarts.count { return bytes.count }
        return offset(inLine: line, advancing: max(0, column - 1), table: scalarsBefore, weight: Self.scalarWeight)
    }

    /// The smallest offset in the line whose count from the line start reaches `amount`, moved to
    /// the next scalar boundary; the line's end when the line is shorter.
    private func offset(inLine line: Int, advancing amount: Int, table: [Int], weight: (UInt8) -> Int) -> Int {
        let start = lineStarts[line]
        let end = lineEnd(line)
        let base = count(before: start, table: table, weight: weight)
        let (target, overflow) = base.addingReportingOverflow(amount)
        if overflow || count(before: end, table: table, weight: weight) < target { return end }
        var low = start
        var high = end
        while low < high {
            let middle = low + (high - low) / 2
            if count(before: middle, table: table, weight: weight) >= target { high = middle } else { low = middle + 1 }
        }
        var offset = low
        while offset < end, bytes[offset] & 0xC0 == 0x80 { offset += 1 }
        return offset
    }

    /// The weighted count of `bytes[0..<offset]`: a block's count plus at most one block of bytes.
    private func count(before offset: Int, table: [Int], weight: (UInt8) -> Int) -> Int {
        let block = offset / Self.blockSize
        var total = table[block]
        var index = block * Self.blockSize
        while index < offset {
            total += weight(bytes[index])
            index += 1
        }
        return total
    }
}
