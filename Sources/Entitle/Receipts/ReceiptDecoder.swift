import Foundation

/// Reads normalized receipt JSON straight into a ``Receipt``, with no intermediate tree and no date
/// formatters: instants are parsed from the bytes into integer milliseconds.
///
/// A receipt is accepted whole or rejected with the location of its first problem: malformed
/// JSON, unknown or repeated keys, wrong types, bad instants, missing required fields, or two
/// consumptions with one id and different content.
public enum ReceiptDecoder {
    /// Receipts larger than this are rejected before reading (``ReceiptLimits/maxBytes``).
    public static let maxBytes = ReceiptLimits.maxBytes
    static let maxDepth = ReceiptLimits.maxDepth

    // The members of each object, as ``ReceiptObject`` declares them.
    static let receiptTable = JSONKeyTable(ReceiptObject.receipt.keys)
    static let transactionTable = JSONKeyTable(ReceiptObject.transaction.keys)
    static let renewalTable = JSONKeyTable(ReceiptObject.renewal.keys)
    static let grantTable = JSONKeyTable(ReceiptObject.grant.keys)
    static let consumptionTable = JSONKeyTable(ReceiptObject.consumption.keys)
    static let commitmentTable = JSONKeyTable(ReceiptObject.commitment.keys)
    static let revocationTable = JSONKeyTable(ReceiptObject.revocation.keys)

    /// The member order each kind of object has used so far in one receipt (see ``JSONKeyTable``).
    struct Predictions {
        var transaction = JSONKeyTable.Prediction()
        var renewal = JSONKeyTable.Prediction()
        var grant = JSONKeyTable.Prediction()
        var consumption = JSONKeyTable.Prediction()
        /// The last transaction's product id and original transaction id, when their text had no
        /// escapes: the next transaction often repeats them (see ``text(repeating:_:into:read:)``).
        var productId = TextRange.none
        var originalTransactionId = TextRange.none
        /// Where the first key each store allows or refuses is, checked once the receipt's
        /// `store` is known (it may come after its transactions).
        var storeKeys = StoreKeys()
    }

    /// The first `appAccountToken`, `account` and `acknowledged` of a receipt: which store's
    /// receipt may hold them is known only once the receipt is read.
    struct StoreKeys {
        var appAccountToken: (offset: Int, path: String)?
        var account: (offset: Int, path: String)?
        var acknowledged: (offset: Int, path: String)?
        var linkedPurchaseToken: (offset: Int, path: String)?
        var purchaseOptionId: (offset: Int, path: String)?
        var topUpAfter: (offset: Int, path: String)?

        /// Notes where the value of `key` is, the first time the receipt gives one (`null` is
        /// none unless `nullCounts`).
        @inline(__always)
        mutating func note(
            _ key: WritableKeyPath<StoreKeys, (offset: Int, path: String)?>, _ reader: inout JSONReader, path: @autoclosure () -> String,
            nullCounts: Bool = false
        ) throws {
            guard self[keyPath: key] == nil, nullCounts || reader.nextByte() != UInt8(ascii: "n") else { return }
            self[keyPath: key] = (try reader.peekOffset(), path())
        }
    }

    /// Decodes one normalized receipt.
    ///
    /// - Parameters:
    ///   - data: the receipt's JSON bytes.
    ///   - name: the file name to use in the error's location.
    /// - Returns: the receipt.
    /// - Throws: ``ReceiptError`` locating the first problem.
    public static func decode(_ data: Data, name: String = "<receipt>") throws(ReceiptError) -> Receipt {
        try parse(data, name: name).receipt
    }

    /// Decodes a file of normalized receipts: one receipt, or a JSON array of them (what
    /// `entitle receipt` prints for a story), each read as ``decode(_:name:)`` reads one.
    ///
    /// - Parameters:
    ///   - data: the JSON bytes: a receipt object, or an array of at least one.
    ///   - name: the file name to use in the error's location.
    /// - Returns: the receipts, in the order written.
    /// - Throws: ``ReceiptError`` locating the first problem; its path starts with the receipt's
    ///   index in an array (`[1].transactions[0].expiresDate`).
    public static func decodeList(_ data: Data, name: String = "<receipts>") throws(ReceiptError) -> [Receipt] {
        try parseList(data, name: name).map(\.receipt)
    }

    /// Decodes one normalized receipt into its parsed form.
    static func parse(_ data: Data, name: String) throws(ReceiptError) -> ParsedReceipt {
        try located(data, name: name) { raw in try parse(raw) }
    }

    /// Decodes a receipt or an array of receipts into their parsed form.
    package static func parseList(_ data: Data, name: String) throws(ReceiptError) -> [ParsedReceipt] {
        try located(data, name: name) { raw in
            // One more level than a receipt alone may use: the array around it.
            var reader = JSONReader(bytes: raw, maxDepth: maxDepth + 1)
            guard try reader.peek() == .array else { return [try parse(raw)] }
            let start = try reader.peekOffset()
            var receipts: [ParsedReceipt] = []
            try reader.readArray { reader, index in
                do {
                    // Not sized from the rest of the file, which holds the receipts after it.
                    receipts.append(try decodeValue(&reader, reserving: false))
                } catch var failure as Failure {
                    failure.path = "[\(index)]" + (failure.path.isEmpty ? "" : "." + failure.path)
                    throw failure
                }
            }
            try reader.finish()
            guard !receipts.isEmpty else {
                throw Failure(
                    offset: start, message: "an empty array of receipts", code: .badValue,
                    help: "a receipt file holds one receipt object, or an array of at least one")
            }
            return receipts
        }
    }

    /// Runs `body` on `data`'s bytes and turns what it throws into a located ``ReceiptError``.
    private static func located<Value>(
        _ data: Data, name: String, _ body: (UnsafeRawBufferPointer) throws -> Value
    ) throws(ReceiptError) -> Value {
        guard data.count <= maxBytes else {
            throw ReceiptError(
                code: .limitExceeded, message: "receipt is \(data.count) bytes, over the limit of \(maxBytes) bytes",
                location: SourceLocation(file: name, line: 1, column: 1))
        }
        let result: Result<Value, Failure> = data.withUnsafeBytes { raw in
            do {
                return .success(try body(raw))
            } catch let failure as Failure {
                return .failure(failure)
            } catch let error as JSONSyntaxError {
                return .failure(Failure(offset: error.offset, message: error.message, code: .malformedJSON, help: error.help))
            } catch {
                return .failure(Failure(offset: 0, message: "\(error)", code: .malformedJSON))
            }
        }
        switch result {
        case .success(let receipt):
            return receipt
        case .failure(var failure):
            let (line, column) = LineTable(data).location(of: failure.offset)
            // Apple's data handed to the normalized decoder: say what it is and what reads it.
            if case .imported(let format)? = AppleImport.detect(data) {
                failure.help =
                    "this is Apple's \(format.phrase), not a normalized receipt: read it with "
                    + "`AppleImport.unverifiedReceipt(from:app:)` (as `entitle check` does), after verifying its signature"
            }
            throw ReceiptError(
                code: failure.code, message: failure.message,
                location: SourceLocation(file: name, line: line, column: column),
                path: failure.path, help: failure.help)
        }
    }

    /// The normalized receipt `data` holds, or `nil` when it holds none (nothing is worked out
    /// about why: the caller looks at what else it may be, and decodes again for the error).
    package static func normalized(_ data: Data) -> ParsedReceipt? {
        guard data.count <= maxBytes else { return nil }
        return data.withUnsafeBytes { raw in try? parse(raw) }
    }

    /// A problem found while decoding, before it is given a line and column.
    struct Failure: Error {
        var offset: Int
        var message: String
        var code: DiagnosticCode
        var path = ""
        var help: String?
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws -> ParsedReceipt {
        var reader = JSONReader(bytes: bytes, maxDepth: maxDepth)
        let receipt = try decodeValue(&reader)
        try reader.finish()
        return receipt
    }

    /// Decodes the normalized receipt that starts at the reader's position and leaves the reader
    /// after it: a receipt inside a larger text (a line of a customer corpus) read where it is,
    /// as ``parse(_:)`` reads the same bytes on their own.
    static func decodeValue(_ reader: inout JSONReader, reserving: Bool = true) throws -> ParsedReceipt {
        var receipt = ParsedReceipt.Fields()
        // Ids are most of a receipt's text; a quarter of its size is a generous first guess.
        if reserving { receipt.arena.reserveCapacity((reader.bytes.count - reader.offset) / 4) }
        try decodeReceipt(&reader, into: &receipt)
        return ParsedReceipt(receipt)
    }

    // MARK: Objects

    static func decodeReceipt(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields) throws {
        var consumptionOffsets: [Int32] = []
        var grantOffsets: [Int32] = []
        var revocationOffsets: [Int32] = []
        var order = JSONKeyTable.Prediction()
        var predictions = Predictions()
        let start = try expectObject(&reader, path: "")
        var seen = KeySet()
        try reader.readObject(keys: receiptTable, prediction: &order) { reader, index, key in
            if let index { try seen.insert(index, key) }
            switch index {
            case 0:
                _ = try string(&reader, path: "$schema")
            case 1:
                receipt.appRange = try nonEmptyText(&reader, into: &receipt, path: "app")
            case 2:
                // About 200 bytes of JSON per transaction.
                receipt.transactions.reserveCapacity(reader.bytes.count / 200)
                try readList(&reader, limit: ReceiptLimits.maxTransactions, of: "transactions", path: "transactions") { reader, index in
                    receipt.transactions.append(try decodeTransaction(&reader, into: &receipt, index: index, predictions: &predictions))
                }
            case 3:
                // A few per receipt: room for them at once, not grown one at a time.
                receipt.renewals.reserveCapacity(4)
                try readList(&reader, limit: ReceiptLimits.maxRenewals, of: "renewals", path: "renewals") { reader, index in
                    receipt.renewals.append(try decodeRenewal(&reader, into: &receipt, index: index, predictions: &predictions))
                }
            case 4:
                receipt.consumptions.reserveCapacity(4)
                consumptionOffsets.reserveCapacity(4)
                try readList(&reader, limit: ReceiptLimits.maxConsumptions, of: "consumptions", path: "consumptions") { reader, index in
                    consumptionOffsets.append(Int32(try reader.peekOffset()))
                    receipt.consumptions.append(try decodeConsumption(&reader, into: &receipt, index: index, predictions: &predictions))
                }
            case 5:
                receipt.environment = try optionalString(&reader, path: "environment")
            case 6:
                receipt.originalApplicationVersion = try optionalString(&reader, path: "originalApplicationVersion")
            case 7:
                receipt.originalPurchase = try optionalInstant(&reader, path: "originalPurchaseDate") ?? TransactionRecord.absentDate
            case 8:
                try readList(&reader, limit: ReceiptLimits.maxGrants, of: "grants", path: "grants") { reader, index in
                    grantOffsets.append(Int32(try reader.peekOffset()))
                    receipt.grants.append(try decodeGrant(&reader, into: &receipt, index: index, predictions: &predictions))
                }
            case 9:
                receipt.store = try enumValue(&reader, Store.self, what: "store", path: "store")
            case 10:
                receipt.appTransactionId = try nonEmptyString(&reader, path: "appTransactionId")
            case 11:
                if try !readNull(&reader) {
                    receipt.originalPlatform = try enumValue(&reader, AppPlatform.self, what: "platform", path: "originalPlatform")
                }
            case 12:
                receipt.preorder = try optionalInstant(&reader, path: "preorderDate") ?? TransactionRecord.absentDate
            case 13:
                receipt.consentRescinded = try optionalInstant(&reader, path: "consentRescinded") ?? TransactionRecord.noCancellation
            case 14:
                try readList(&reader, limit: ReceiptLimits.maxRevocations, of: "revocations", path: "revocations") { reader, index in
                    revocationOffsets.append(Int32(try reader.peekOffset()))
                    receipt.revocations.append(try decodeRevocation(&reader, index: index))
                }
            default:
                throw unknownKey(key, in: .receipt, path: "")
            }
        }
        guard !receipt.appRange.isNone else { throw missing("app", in: "receipt", at: start, path: "") }
        try checkStoreKeys(predictions.storeKeys, store: receipt.store)
        if receipt.consumptions.count > 1 { try removeRepeatedConsumptions(&receipt, offsets: consumptionOffsets) }
        if receipt.grants.count > 1 { try removeRepeatedGrants(&receipt, offsets: grantOffsets) }
        if !receipt.revocations.isEmpty { try checkVoidedQuantities(receipt, offsets: revocationOffsets) }
    }

    /// Refuses a receipt whose voids of one purchase take back more units than it bought,
    /// located at the void that goes past it.
    static func checkVoidedQuantities(_ receipt: ParsedReceipt.Fields, offsets: [Int32]) throws {
        let parsed = ParsedReceipt(receipt)
        let quantities = parsed.transactions.map { (parsed.text($0.transactionId) ?? "", Int($0.quantity)) }
        guard let excess = RevocationFacts.excess(receipt.revocations, quantities: quantities) else { return }
        throw Failure(
            offset: Int(offsets[excess.index]), message: excess.message, code: .badValue,
            path: "revocations[\(excess.index)].voidedQuantity", help: "a purchase's voids take back at most the units it bought")
    }

    /// Refuses a key the receipt's store does not take: `appAccountToken` is the App Store's,
    /// `account` the other stores', `acknowledged`, `linkedPurchaseToken`, `purchaseOptionId` and `topUpAfter` Play's.
    static func checkStoreKeys(_ keys: StoreKeys, store: Store) throws {
        let name = store.rawValue
        if store == .appStore, let key = keys.account {
            throw Failure(
                offset: key.offset, message: "`account` is for receipts of other stores; an App Store receipt says `appAccountToken`",
                code: .keyNotAllowed, path: key.path, help: "give the receipt its `store` (`play`, `stripe`, `external`), or write `appAccountToken`")
        }
        if store != .appStore, let key = keys.appAccountToken {
            throw Failure(
                offset: key.offset, message: "`appAccountToken` is the App Store's; a `\(name)` receipt says `account`", code: .keyNotAllowed,
                path: key.path, help: "write the service's account id as `account`")
        }
        if store != .play, let key = keys.acknowledged {
            throw Failure(
                offset: key.offset, message: "`acknowledged` is for Play receipts, not `\(name)` ones", code: .keyNotAllowed, path: key.path,
                help: "only Google Play refunds purchases the app does not acknowledge")
        }
        if store != .play, let key = keys.linkedPurchaseToken {
            throw Failure(
                offset: key.offset, message: "`linkedPurchaseToken` is for Play receipts, not `\(name)` ones", code: .keyNotAllowed,
                path: key.path,
                help:
                    "Google Play names the subscription a purchase replaces by its token; another store's chain continues by its `originalTransactionId`"
            )
        }
        let playOnly = [
            (
                keys.purchaseOptionId, "purchaseOptionId",
                "only Google Play sells one product through several purchase options; name the product itself"
            ),
            (keys.topUpAfter, "topUpAfter", "only Google Play's prepaid plans are topped up; another store's pass stacks when bought again"),
        ]
        for (noted, key, help) in playOnly where store != .play {
            guard let noted else { continue }
            throw Failure(
                offset: noted.offset, message: "`\(key)` is for Play receipts, not `\(name)` ones", code: .keyNotAllowed, path: noted.path, help: help
            )
        }
    }

    /// Keeps the first of grants repeated with the same id and content; the same id with
    /// different content rejects the receipt, located at the later one.
    static func removeRepeatedGrants(_ receipt: inout ParsedReceipt.Fields, offsets: [Int32]) throws {
        let parsed = ParsedReceipt(receipt)
        receipt.grants = try keepingFirstOfRepeated(
            receipt.grants, in: parsed, offsets: offsets,
            sameContent: { parsed.sameGrant($0, parsed, $1) },
            what: "grant", key: "grants", code: .conflictingGrant, rule: "a grant id must identify one grant")
    }

    /// Keeps the first of consumptions repeated with the same id and content; the same id with
    /// different content rejects the receipt, located at the later one.
    static func removeRepeatedConsumptions(_ receipt: inout ParsedReceipt.Fields, offsets: [Int32]) throws {
        let parsed = ParsedReceipt(receipt)
        receipt.consumptions = try keepingFirstOfRepeated(
            receipt.consumptions, in: parsed, offsets: offsets,
            sameContent: { parsed.bytesEqual($0.currency, parsed, $1.currency) && $0.amount == $1.amount && $0.date == $1.date },
            what: "consumption", key: "consumptions", code: .conflictingConsumption,
            rule: "a consumption id must identify one record")
    }

    /// `records` without the later copies of a record repeated with the same id and content;
    /// the same id with other content is a failure located at the later record (`offsets`).
    static func keepingFirstOfRepeated<Record: IdentifiedRecord>(
        _ records: [Record], in receipt: ParsedReceipt, offsets: [Int32], sameContent: (Record, Record) -> Bool,
        what: String, key: String, code: DiagnosticCode, rule: String
    ) throws -> [Record] {
        let first = DuplicateFinder.firstOccurrences(
            count: records.count, hash: { records[$0].idHash },
            equal: { receipt.bytesEqual(records[$0].id, receipt, records[$1].id) },
            precedes: { receipt.lexicographicallyPrecedes(records[$0].id, receipt, records[$1].id) })
        var kept: [Record] = []
        kept.reserveCapacity(records.count)
        for (index, record) in records.enumerated() {
            let earlier = Int(first[index])
            guard earlier != index else {
                kept.append(record)
                continue
            }
            guard sameContent(records[earlier], record) else {
                throw Failure(
                    offset: Int(offsets[index]),
                    message: "\(what) `\(receipt.text(record.id)!)` appears twice with different content",
                    code: code, path: "\(key)[\(index)]",
                    help: "the first is \(key)[\(earlier)]; \(rule)")
            }
        }
        return kept
    }

    /// Reads a list of at most `limit` elements, each by `element` (given its position): a value
    /// that is not a list, or an element past the limit, is a located error. The limits keep a
    /// hostile receipt's cost bounded; a real `owner` comes nowhere near them.
    static func readList(
        _ reader: inout JSONReader, limit: Int, of what: String, in owner: String = "receipt", path: @autoclosure () -> String,
        element: (inout JSONReader, Int) throws -> Void
    ) throws {
        try expectArray(&reader, path: path())
        try reader.readArray { reader, index in
            guard index < limit else {
                throw Failure(
                    offset: try reader.peekOffset(), message: "more than \(limit) \(what) in one \(owner)", code: .limitExceeded,
                    path: path() + "[\(index)]",
                    help: owner == "receipt" ? "a receipt holds at most \(limit) \(what); split the data into several receipts" : nil)
            }
            try element(&reader, index)
        }
    }
}

extension JSONReader {
    /// The offset of the next value, after skipping whitespace.
    mutating func peekOffset() throws -> Int {
        _ = try peek()
        return valueOffset
    }
}
