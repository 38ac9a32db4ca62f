/// Maps byte offsets of a UTF-8 text to 1-based line and column numbers.
///
/// Columns count Unicode scalars, not bytes, so a location matches what an editor shows for
/// non-ASCII text. The table is built once per text, only when a diagnostic needs it.
struct LineTable: Sendable {
    private let lineStarts: [Int]
    private let bytes: [UInt8]

    init<Bytes: Collection>(_ text: Bytes) where Bytes.Element == UInt8 {
        bytes = Array(text)
        var starts = [0]
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(index + 1)
        }
        lineStarts = starts
    }

    /// The 1-based line and column of a byte offset (clamped to the text).
    func location(of offset: Int) -> (line: Int, column: Int) {
        let offset = max(0, min(offset, bytes.count))
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        var column = 1
        var index = lineStarts[low]
        while index < offset {
            // Continuation bytes (10xxxxxx) belong to the scalar before them.
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        return (low + 1, column)
    }
}
