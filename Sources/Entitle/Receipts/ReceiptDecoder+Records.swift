import Foundation

/// The smaller records of a receipt: a transaction's commitment and refund percentage, account
/// tokens and storefronts, grants and consumptions.
extension ReceiptDecoder {
    /// A transaction's `commitment`: `{"period", "periods", "endsAt"}`, all required, the period
    /// within the periods.
    static func decodeCommitment(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> CommitmentRecord {
        var order = JSONKeyTable.Prediction()
        var record = CommitmentRecord(period: 0, periods: 0, ends: TransactionRecord.absentDate)
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        try reader.readObject(keys: commitmentTable, prediction: &order) { reader, index, key in
            if let index { try seen.insert(index, key) }
            switch index {
            case 0, 1:
                let field = index == 0 ? ".period" : ".periods"
                let offset = try reader.peekOffset()
                let value = try integer(&reader, path: path() + field)
                guard value >= 1, value <= Int64(ReceiptLimits.maxCommitmentPeriods) else {
                    throw Failure(
                        offset: offset, message: "must be a whole number from 1 to \(ReceiptLimits.maxCommitmentPeriods), found \(value)",
                        code: .badValue, path: path() + field)
                }
                if index == 0 { record.period = Int32(value) } else { record.periods = Int32(value) }
            case 2:
                record.ends = try instant(&reader, path: path() + ".endsAt")
            default:
                throw unknownKey(key, in: .commitment, path: path())
            }
        }
        for (field, missing) in [
            ("period", record.period == 0), ("periods", record.periods == 0), ("endsAt", record.ends == TransactionRecord.absentDate),
        ]
        where missing {
            throw Self.missing(field, in: "commitment", at: start, path: path())
        }
        guard record.period <= record.periods else {
            throw Failure(
                offset: start, message: "period \(record.period) of a commitment of \(record.periods) periods",
                code: .badValue, path: path(), help: "`period` counts from 1 to `periods`")
        }
        return record
    }

    /// A refund's percentage: a number from 0 to 100 with at most three decimals, in thousandths.
    static func percentage(_ reader: inout JSONReader, path: @autoclosure () -> String) throws -> Int32 {
        if try readNull(&reader) { return -1 }
        let kind = try reader.peek()
        guard kind == .number else { throw wrongType(&reader, expected: "a number from 0 to 100", found: kind, path: path()) }
        let offset = reader.valueOffset
        let number = try reader.readNumber()
        guard let thousandths = thousandths(number.text) else {
            throw Failure(
                offset: offset, message: "`\(number.text)` is not a percentage from 0 to 100 with at most three decimals",
                code: .badValue, path: path(),
                help: "Apple's `revocationPercentage` is in thousandths: divide it by 1,000 (`33333` is `33.333`)")
        }
        return thousandths
    }

    /// `0` to `100` with up to three decimals (no exponent, no sign) in thousandths; `nil` else.
    static func thousandths(_ text: String) -> Int32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= 3,
            whole.allSatisfy({ $0.isASCII && $0.isNumber }), let wholeValue = Int32(whole)
        else { return nil }
        var fraction: Int32 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int32(digits + String(repeating: "0", count: 3 - digits.count))
            else { return nil }
            fraction = value
        }
        let value = wholeValue * 1_000 + fraction
        return value <= TransactionRecord.wholePercentage ? value : nil
    }

    /// An `appAccountToken`: a UUID (`8-4-4-4-12` hexadecimal digits), kept lowercase.
    static func accountToken(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String) throws
        -> TextRange
    {
        try checkedText(&reader, into: &receipt, path: path(), stored: AccountToken.canonical) { text in
            (message: "`\(Diagnostic.excerpt(text))` is not a UUID", help: "an app account token looks like `7e3fb20b-4cdb-47cc-936d-99d65f608138`")
        }
    }

    /// Another store's `account`: the service's account id, 1 to 256 characters, kept as written.
    static func account(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String) throws
        -> TextRange
    {
        try checkedText(
            &reader, into: &receipt, path: path(),
            stored: { text in !text.isEmpty && text.count <= AccountToken.maxAccountCharacters ? text : nil },
            problem: { text in
                (
                    text.isEmpty
                        ? "`account` must not be empty"
                        : "`account` of \(text.count) characters is longer than \(AccountToken.maxAccountCharacters)",
                    "the service's account id as the store carries it, 1 to 256 characters"
                )
            })
    }

    /// A purchase's `storefront`: ISO 3166-1 alpha-3, upper case, as Apple writes it.
    static func storefront(_ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String) throws
        -> TextRange
    {
        try checkedText(
            &reader, into: &receipt, path: path(), stored: { Storefront.isAlpha3($0) ? $0 : nil },
            problem: { text in
                (
                    "`\(Diagnostic.excerpt(text))` is not an ISO 3166-1 alpha-3 storefront",
                    Storefront.alpha3(text).map { "did you mean `\($0)`? storefronts are written as Apple writes them" }
                        ?? "three capital letters, as Apple writes a storefront: `USA`, `DEU`, `JPN`"
                )
            })
    }

    /// A text that is `null` (none) or a string `stored` accepts, kept in the form it returns;
    /// otherwise a `bad-value` failure at the string with `problem`'s message and help.
    static func checkedText(
        _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, path: @autoclosure () -> String,
        stored: (String) -> String?, problem: (String) -> (message: String, help: String)
    ) throws -> TextRange {
        if try readNull(&reader) { return .none }
        let token = try stringToken(&reader, path: path())
        let text = token.string
        guard let kept = stored(text) else {
            let (message, help) = problem(text)
            throw Failure(offset: token.offset, message: message, code: .badValue, path: path(), help: help)
        }
        return receipt.store(kept)
    }

    static func decodeGrant(
        _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, index: Int, predictions: inout Predictions
    ) throws -> GrantRecord {
        func path(_ field: String = "") -> String { "grants[\(index)]\(field)" }
        var record = GrantRecord(id: .none, idHash: 0, features: 0..<0, start: TransactionRecord.absentDate, end: .max, revoked: .max)
        var sawFeatures = false
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        try reader.readObject(keys: grantTable, prediction: &predictions.grant) { reader, index, key in
            if let index { try seen.insert(index, key) }
            switch index {
            case 0:
                (record.id, record.idHash) = try id(&reader, into: &receipt, path: path(".id"))
            case 1:
                let first = Int32(receipt.grantFeatures.count)
                try readList(&reader, limit: ReceiptLimits.maxGrantFeatures, of: "features", in: "grant", path: path(".features")) {
                    reader, position in
                    receipt.grantFeatures.append(try nonEmptyText(&reader, into: &receipt, path: path(".features[\(position)]")))
                }
                record.features = first..<Int32(receipt.grantFeatures.count)
                sawFeatures = true
            case 2:
                record.start = try instant(&reader, path: path(".start"))
            case 3:
                record.end = try optionalInstant(&reader, path: path(".end")) ?? .max
            case 4:
                record.revoked = try optionalInstant(&reader, path: path(".revokedAt")) ?? .max
            default:
                throw unknownKey(key, in: .grant, path: path())
            }
        }
        guard !record.id.isNone else { throw missing("id", in: "grant", at: start, path: path()) }
        guard sawFeatures else { throw missing("features", in: "grant", at: start, path: path()) }
        guard record.start != TransactionRecord.absentDate else { throw missing("start", in: "grant", at: start, path: path()) }
        return record
    }

    static func decodeConsumption(
        _ reader: inout JSONReader, into receipt: inout ParsedReceipt.Fields, index: Int, predictions: inout Predictions
    ) throws -> ConsumptionRecord {
        func path(_ field: String = "") -> String { "consumptions[\(index)]\(field)" }
        var record = ConsumptionRecord(id: .none, idHash: 0, currency: .none, amount: 0, date: TransactionRecord.absentDate)
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        try reader.readObject(keys: consumptionTable, prediction: &predictions.consumption) { reader, index, key in
            if let index { try seen.insert(index, key) }
            switch index {
            case 0:
                (record.id, record.idHash) = try id(&reader, into: &receipt, path: path(".id"))
            case 1:
                record.currency = try nonEmptyText(&reader, into: &receipt, path: path(".currency"))
            case 2:
                let offset = try reader.peekOffset()
                let value = try integer(&reader, path: path(".amount"))
                guard value > 0, value <= ReceiptLimits.maxConsumptionAmount else {
                    throw Failure(
                        offset: offset, message: "amount must be a positive integer up to 10^12, found \(value)",
                        code: .badValue, path: path(".amount"))
                }
                record.amount = value
            case 3:
                record.date = try instant(&reader, path: path(".date"))
            default:
                throw unknownKey(key, in: .consumption, path: path())
            }
        }
        guard !record.id.isNone else { throw missing("id", in: "consumption", at: start, path: path()) }
        guard !record.currency.isNone else { throw missing("currency", in: "consumption", at: start, path: path()) }
        guard record.amount > 0 else { throw missing("amount", in: "consumption", at: start, path: path()) }
        guard record.date != TransactionRecord.absentDate else { throw missing("date", in: "consumption", at: start, path: path()) }
        return record
    }

    static func decodeRevocation(_ reader: inout JSONReader, index: Int) throws -> Revocation {
        func path(_ field: String = "") -> String { "revocations[\(index)]\(field)" }
        var transactionId: String?
        var date: Int64?
        var revocation = Revocation(transactionId: "", date: .earliest)
        let start = try expectObject(&reader, path: path())
        var seen = KeySet()
        func amount(_ reader: inout JSONReader, _ key: String) throws -> Int64? {
            if try readNull(&reader) { return nil }
            let offset = try reader.peekOffset()
            let value = try integer(&reader, path: path("." + key))
            guard value >= 0, value <= ReceiptLimits.maxRefundAmount else {
                throw Failure(
                    offset: offset, message: "an amount must be a whole number from 0 to 10^15 (the currency's smallest unit), found \(value)",
                    code: .badValue, path: path("." + key))
            }
            return value
        }
        var kinds: [(key: String, offset: Int)] = []
        var paidOffset: Int?
        var prediction = JSONKeyTable.Prediction()
        try reader.readObject(keys: revocationTable, prediction: &prediction) { reader, index, key in
            if let index { try seen.insert(index, key) }
            let offset = try reader.peekOffset()
            switch index {
            case 0:
                transactionId = try nonEmptyString(&reader, path: path(".transactionId"))
            case 1:
                date = try instant(&reader, path: path(".date"))
            case 2:
                guard try !readNull(&reader) else { return }
                let value = try integer(&reader, path: path(".voidedQuantity"))
                guard value >= 1, value <= Int64(ReceiptLimits.maxQuantity) else {
                    throw Failure(
                        offset: offset, message: "`voidedQuantity` must be a whole number from 1 to \(ReceiptLimits.maxQuantity), found \(value)",
                        code: .badValue, path: path(".voidedQuantity"))
                }
                revocation.voidedQuantity = Int(value)
                kinds.append(("voidedQuantity", offset))
            case 3:
                revocation.amount = try amount(&reader, "amount")
                if revocation.amount != nil { kinds.append(("amount", offset)) }
            case 4:
                revocation.amountRefunded = try amount(&reader, "amountRefunded")
                if revocation.amountRefunded != nil { kinds.append(("amountRefunded", offset)) }
            case 5:
                revocation.amountPaid = try amount(&reader, "amountPaid")
                if revocation.amountPaid != nil { paidOffset = offset }
            case 6:
                revocation.id = try nonEmptyString(&reader, path: path(".id"))
            default:
                throw unknownKey(key, in: .revocation, path: path())
            }
        }
        guard let transactionId else { throw missing("transactionId", in: "revocation", at: start, path: path()) }
        guard let date else { throw missing("date", in: "revocation", at: start, path: path()) }
        if kinds.count > 1 {
            throw Failure(
                offset: kinds[1].offset,
                message: "a revocation gives one of `voidedQuantity`, `amount` and `amountRefunded`, not `\(kinds[0].key)` and `\(kinds[1].key)`",
                code: .badValue, path: path("." + kinds[1].key),
                help:
                    "Play voids units (`voidedQuantity`); a Stripe refund gives its `amount`, a Charge everything refunded so far (`amountRefunded`)")
        }
        if let paidOffset, revocation.amount == nil, revocation.amountRefunded == nil {
            throw Failure(
                offset: paidOffset, message: "`amountPaid` is the share's base: it goes with `amount` or `amountRefunded`", code: .badValue,
                path: path(".amountPaid"))
        }
        revocation.transactionId = transactionId
        revocation.date = Instant(millisecondsSince1970: date)
        return revocation
    }
}
