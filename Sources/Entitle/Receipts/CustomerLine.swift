import Foundation

/// One line of a customer corpus in JSON Lines: `{"customer": ID, "receipts": [RECEIPT, ...]}`,
/// where ID is a string or an integer and each receipt is a JSON value (a normalized receipt or
/// Apple's data, an object, or a string such as a compact JWS) kept as its raw bytes.
package struct CustomerLine: Sendable {
    /// The customer id.
    package var customer: String
    /// Whether the id was written as a whole number (`"customer": 2`), so output can write it the same way.
    package var customerIsInteger = false
    /// Each receipt's bytes, as written in the line.
    package var receipts: [Data]
    /// The line, kept to locate a receipt's problem.
    private let line: Data
    /// Where each receipt starts in the line, in bytes from its start.
    private let offsets: [Int]

    /// Where each receipt starts in the line: its column (from 1, counting characters). Counted
    /// when asked, in one pass over the line: only a receipt with a problem needs it.
    package var columns: [Int] {
        let table = LineTable(line)
        return offsets.map { table.location(of: $0).column }
    }

    /// Reads one line.
    ///
    /// - Throws: ``ReceiptError`` located at `line` of `name` with the column of the mistake.
    package init(_ bytes: Data, name: String, line: Int) throws(ReceiptError) {
        func failure(_ message: String, at offset: Int, help: String? = nil) -> ReceiptError {
            let column = String(decoding: bytes.prefix(offset), as: UTF8.self).count + 1
            return ReceiptError(
                code: .malformedJSON, message: message,
                location: SourceLocation(file: name, line: line, column: column), help: help)
        }
        var customer: String?
        var customerIsInteger = false
        var ranges: [Range<Int>] = []
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
                            _ = try reader.peek()
                            let start = reader.valueOffset
                            try reader.skipValue()
                            ranges.append(start..<reader.offset)
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
        self.offsets = ranges.map(\.lowerBound)
        self.receipts = ranges.map { bytes[bytes.startIndex + $0.lowerBound..<bytes.startIndex + $0.upperBound] }.map { Data($0) }
    }
}
