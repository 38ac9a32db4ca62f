/// Maps byte offsets of a UTF-8 text to 1-based line and column numbers.
///
/// Columns count Unicode scalars, not bytes, so a location matches what an editor shows for
/// non-ASCII text. The table is built once per text, only when a diagnostic needs it, in one pass;
/// each lookup then costs a binary search and at most one block of bytes, however long the line
/// (a catalog minified to one line with thousands of errors is located in linear time).
package struct LineTable: Sendable {
    private let lineStarts: [Int]
    private let bytes: [UInt8]
    /// Continuation bytes (10xxxxxx) before the start of each block of ``blockSize`` bytes.
    private let continuationsBefore: [Int]
    private static let blockSize = 64

    package init<Bytes: Collection>(_ text: Bytes) where Bytes.Element == UInt8 {
        bytes = Array(text)
        var starts = [0]
        var continuations: [Int] = []
        continuations.reserveCapacity(bytes.count / LineTable.blockSize + 1)
        var count = 0
        for (index, byte) in bytes.enumerated() {
            if index % LineTable.blockSize == 0 { continuations.append(count) }
            if LineTable.endsLine(bytes, at: index) { starts.append(index + 1) }
            if byte & 0xC0 == 0x80 { count += 1 }
        }
        continuations.append(count)
        lineStarts = starts
        continuationsBefore = continuations
    }

    /// Whether the byte at `index` ends a line: a `\n`, or a `\r` not followed by `\n` (a line
    /// ends at `\n`, `\r\n` or a lone `\r`, as LSP and editors count lines).
    @inline(__always)
    package static func endsLine(_ bytes: [UInt8], at index: Int) -> Bool {
        let byte = bytes[index]
        return byte == UInt8(ascii: "\n")
            || (byte == UInt8(ascii: "\r") && (index + 1 == bytes.count || bytes[index + 1] != UInt8(ascii: "\n")))
    }

    /// The 1-based line and column of a byte offset (clamped to the text).
    package func location(of offset: Int) -> (line: Int, column: Int) {
        let offset = max(0, min(offset, bytes.count))
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let lineStart = lineStarts[low]
        // Scalars between the line start and the offset: bytes less continuation bytes.
        let scalars = (offset - lineStart) - (continuations(before: offset) - continuations(before: lineStart))
        return (low + 1, scalars + 1)
    }

    /// Continuation bytes in `bytes[0..<offset]`.
    private func continuations(before offset: Int) -> Int {
        let block = offset / LineTable.blockSize
        var count = continuationsBefore[block]
        var index = block * LineTable.blockSize
        while index < offset {
            if bytes[index] & 0xC0 == 0x80 { count += 1 }
            index += 1
        }
        return count
    }
}
