import Foundation

/// One line of a customer corpus in JSON Lines: `{"customer": ID, "receipts": [RECEIPT, ...]}`,
/// where ID is a string or an integer and each receipt is a JSON value (a normalized receipt or
/// Apple's data, an object, or a string such as a compact JWS) kept as its raw bytes.
package struct CustomerLine: Sendable {
    /// The customer id.
    package var customer: String
    /// Whether the id was written as a whole number (`"customer": 2`), so output can write it the same way.
    package var customerIsInteger = false
    /// The line, kept to locate a receipt's problem.
    private let line: Data
    /// Where each receipt is in the line, in bytes from its start.
    private let ranges: [Range<Int>]
    /// Per receipt, the normalized receipt read from the line as it was read, when asked for
    /// (`nil` for one that is not a normalized receipt: Apple's data, a string).
    package let normalized: [ParsedReceipt?]

    /// The number of receipts.
    package var count: Int { ranges.count }

    /// Each receipt's bytes, as written in the line (copied when asked).
    package var receipts: [Data] { ranges.indices.map(receipt(at:)) }

    /// The bytes of receipt `index`, as written in the line.
    package func receipt(at index: Int) -> Data {
        Data(line[line.startIndex + ranges[index].lowerBound..<line.startIndex + ranges[index].upperBound])
    }

    /// Where each receipt starts in the line: its column (from 1, counting characters). Counted
    /// when asked, in one pass over the line: only a receipt with a problem needs it.
    package var columns: [Int] {
        let table = LineTable(line)
        return ranges.map { table.location(of: $0.lowerBound).column }
    }

    /// Reads one line.
    ///
    /// - Parameters:
    ///   - readingNormalized: read each receipt that is an object as a normalized receipt while
    ///     the line is read (``normalized``), rather than scanning it here and decoding its bytes
    ///     again later. One that does not read as one is scanned as any other JSON value.
    /// - Throws: ``ReceiptError`` located at `line` of `name` with the column of the mistake.
    package init(_ bytes: Data, name: String, line: Int, readingNormalized: Bool = false) throws(ReceiptError) {
        func failure(_ message: String, at offset: Int, help: String? = nil) -> ReceiptError {
            let column = String(decoding: bytes.prefix(offset), as: UTF8.self).count + 1
            return ReceiptError(
                code: .malformedJSON, message: message,
                location: SourceLocation(file: name, line: line, column: column), help: help)
        }
        var customer: String?
        var customerIsInteger = false
        var ranges: [Range<Int>] = []
        var normalized: [ParsedReceipt?] = []
        let result: Result<Void, JSONSyntaxError> = bytes.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw, maxDepth: ReceiptLimits.maxDepth)
            do {
                guard try reader.peek() == .object else { throw reader.error("a customer line must be an object") }
                try reader.readObject { reader, key in
                    switch key.string {
                    case "customer":
                        let start = reader.valueOffset
                        switch try reader.peek() {
                        case .string: customer = try reader.readString()
                        case .number:
                            let number = try reader.readNumber()
                            customer = number.text
                            customerIsInteger = number.integer != nil && number.text.allSatisfy { $0 == "-" || ("0"..."9").contains($0) }
                        default: throw JSONSyntaxError(offset: start, message: "`customer` must be a string or a number")
                        }
                    case "receipts":
                        guard try reader.peek() == .array else {
                            throw JSONSyntaxError(offset: reader.valueOffset, message: "`receipts` must be an array")
                        }
                        try reader.readArray { reader, _ in
                            let kind = try reader.peek()
                            let start = reader.valueOffset
                            if readingNormalized, kind == .object {
                                // Read in place; on any problem the value is scanned as JSON from its
                                // start, and its bytes are decoded again later (with the located error).
                                var attempt = reader
                                if let receipt = try? ReceiptDecoder.decodeValue(&attempt) {
                                    reader = attempt
                                    ranges.append(start..<reader.offset)
                                    normalized.append(receipt)
                                    return
                                }
                            }
                            try reader.skipValue()
                            ranges.append(start..<reader.offset)
                            normalized.append(nil)
                        }
                    default:
                        throw JSONSyntaxError(
                            offset: reader.offset, message: "unknown key `\(Diagnostic.excerpt(key.string))` in a customer line",
                            help: "a line is {\"customer\": ID, \"receipts\": [...]}")
                    }
                }
                try reader.finish()
                return .success(())
            } catch let error as JSONSyntaxError {
                return .failure(error)
            } catch {
                return .failure(JSONSyntaxError(offset: 0, message: "\(error)"))
            }
        }
        if case .failure(let error) = result { throw failure(error.message, at: error.offset, help: error.help) }
        guard let customer else { throw failure("the line has no `customer`", at: 0) }
        // An empty `receipts` list reads; the corpus refuses it with the customer's id.
        self.customer = customer
        self.customerIsInteger = customerIsInteger
        self.line = bytes
        self.ranges = ranges
        self.normalized = normalized
    }
}
