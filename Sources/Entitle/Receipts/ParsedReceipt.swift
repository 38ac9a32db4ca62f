import Foundation

/// A receipt decoded into numbers and one block of text: the form evaluation reads.
///
/// Decoding builds no `String` per field: ids are ranges into one byte arena, instants are
/// milliseconds. A service that evaluates one receipt at many instants decodes it once;
/// ``receipt`` gives the same data as a ``Receipt`` value when it is needed.
public struct ParsedReceipt: Sendable {
    var arena: [UInt8]
    var appRange: TextRange
    var transactions: [TransactionRecord]
    var renewals: [RenewalRecord]
    var consumptions: [ConsumptionRecord]
    var environment: String?
    var originalApplicationVersion: String?

    init() {
        arena = []
        appRange = .none
        transactions = []
        renewals = []
        consumptions = []
    }

    /// Decodes normalized receipt JSON.
    ///
    /// - Parameters:
    ///   - json: the receipt's bytes.
    ///   - name: the file name to use in the error's location.
    /// - Throws: ``ReceiptError`` locating the first problem.
    public init(json: Data, name: String = "<receipt>") throws(ReceiptError) {
        self = try ReceiptDecoder.parse(json, name: name)
    }

    /// The bundle id of the app the receipt belongs to.
    public var app: String { text(appRange) ?? "" }

    /// The number of transactions, copies included.
    public var transactionCount: Int { transactions.count }

    func text(_ range: TextRange) -> String? {
        guard !range.isNone else { return nil }
        return String(decoding: arena[Int(range.start)..<Int(range.start + range.count)], as: UTF8.self)
    }

    func bytesEqual(_ range: TextRange, _ other: ParsedReceipt, _ otherRange: TextRange) -> Bool {
        range.count == otherRange.count
            && arena[Int(range.start)..<Int(range.start + range.count)]
                .elementsEqual(other.arena[Int(otherRange.start)..<Int(otherRange.start + otherRange.count)])
    }

    func bytesEqual(_ range: TextRange, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !range.isNone && arena[Int(range.start)..<Int(range.start + range.count)].elementsEqual(bytes)
    }

    func bytesEqual(_ range: TextRange, _ string: String) -> Bool {
        !range.isNone && arena[Int(range.start)..<Int(range.start + range.count)].elementsEqual(string.utf8)
    }

    /// Appends bytes to the arena and returns their range.
    mutating func store(_ bytes: UnsafeRawBufferPointer) -> TextRange {
        let start = arena.count
        // Typed bytes append with one copy; a raw buffer would go element by element.
        arena.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
        return TextRange(start: Int32(start), count: Int32(bytes.count))
    }

    mutating func store(_ string: String) -> TextRange {
        var string = string
        return string.withUTF8 { store(UnsafeRawBufferPointer($0)) }
    }
}
