import Foundation

/// Maps an app receipt (PKCS#7 `signedData`, DER or base64, as apps find it on a device) to a
/// receipt, by walking the ASN.1 to the payload: a SET of attributes `{type, version, value}`
/// whose values wrap DER.
///
/// | attribute | normalized |
/// |---|---|
/// | 0 receipt type (`Production`, `ProductionSandbox`, `Xcode`) | `environment` |
/// | 2 bundle id | `app` |
/// | 19 original application version, 18 original purchase date | `originalApplicationVersion`, `originalPurchaseDate` |
/// | 12 receipt creation date | every transaction's `signedDate` |
/// | 17 in-app purchase receipt (one per transaction) | `transactions[]` |
/// | 1701 quantity, 1702 product id, 1703 transaction id, 1705 original transaction id | `quantity`, `productId`, `transactionId`, `originalTransactionId` |
/// | 1704 purchase date, 1706 original purchase date, 1708 expiry, 1712 cancellation (empty when absent) | `purchaseDate`, `originalPurchaseDate`, `expiresDate`, `cancellationDate` |
/// | 1713 trial period, 1719 introductory price period | `isTrialPeriod`, `isIntroOfferPeriod` |
/// | 1721 promotional offer identifier | `offerId` |
///
/// An app receipt is one snapshot of every transaction it holds, signed when it was created: its
/// creation date dates them all (`signedDate`), so a later copy of a transaction (a JWS signed
/// after a refund) stands for it from its own signing on. A receipt without a readable creation
/// date leaves `signedDate` out (with a warning when attribute 12 is there but is not a date).
///
/// Dates are RFC 3339, also with an offset written without a colon (`+0100`), as 2020 Xcode
/// receipts have them. The PKCS#7 signature is not checked.
enum AppReceiptMapper {
    static let signedData = "1.2.840.113549.1.7.2"
    static let data = "1.2.840.113549.1.7.1"

    /// The DER bytes of `input`: itself when it starts as DER, else its base64 decoding.
    static func der(_ input: Data) -> [UInt8]? {
        if input.first == 0x30 { return Array(input) }
        guard let decoded = Base64.decode(input, skippingWhitespace: true), decoded.first == 0x30 else { return nil }
        return decoded
    }

    static func map(_ bytes: [UInt8], warnings: inout [ImportWarning]) throws(BERReader.Failure) -> Receipt {
        var creationDate: Instant?
        return try map(bytes, warnings: &warnings, creationDate: &creationDate)
    }

    /// ``map(_:warnings:)``, also handing back the receipt's creation date (attribute 12), the
    /// instant a verifier checks the signing certificates at; `nil` when it is absent or not a date.
    static func map(_ bytes: [UInt8], warnings: inout [ImportWarning], creationDate: inout Instant?) throws(BERReader.Failure) -> Receipt {
        var outer = BERReader(bytes[...])
        let contentInfo = try outer.next(tag: 0x30, "a PKCS#7 ContentInfo SEQUENCE")
        var info = BERReader(contentInfo.content, depth: 1)
        let type = try BERReader.objectIdentifier(try info.next(tag: 0x06, "a content type"))
        guard type == signedData else { throw BERReader.Failure(offset: contentInfo.offset, message: "not PKCS#7 signedData (content type \(type))") }
        let explicit = try info.next(tag: 0xA0, "the signedData content")
        var wrapper = BERReader(explicit.content, depth: 2)
        let signed = try wrapper.next(tag: 0x30, "a SignedData SEQUENCE")
        var fields = BERReader(signed.content, depth: 3)
        _ = try fields.next(tag: 0x02, "the SignedData version")
        _ = try fields.next(tag: 0x31, "the digest algorithms")
        let encapsulated = try fields.next(tag: 0x30, "the encapsulated content")
        var content = BERReader(encapsulated.content, depth: 4)
        let contentType = try BERReader.objectIdentifier(try content.next(tag: 0x06, "the encapsulated content type"))
        guard contentType == data else {
            throw BERReader.Failure(offset: encapsulated.offset, message: "the receipt payload is not PKCS#7 data")
        }
        let payloadWrapper = try content.next(tag: 0xA0, "the receipt payload")
        var payloadReader = BERReader(payloadWrapper.content, depth: 5)
        let payload = try BERReader.octets(try payloadReader.next(tag: 0x04, "the receipt payload OCTET STRING"))

        var receipt = Receipt(app: "")
        var sawBundle = false
        var dropped: Set<Int64> = []
        try attributes(payload[...]) { (type, value, offset) throws(BERReader.Failure) in
            switch type {
            case 0:
                let raw = try BERReader.text(try single(value))
                receipt.environment = AppleEnvironment.normalize(raw, path: "attribute 0", warnings: &warnings)
            case 2:
                receipt.app = try BERReader.text(try single(value))
                sawBundle = true
            case 19:
                receipt.originalApplicationVersion = try BERReader.text(try single(value))
            case 18:
                let text = try BERReader.text(try single(value))
                if !text.isEmpty {
                    var copy = text
                    guard let date = copy.withUTF8({ Instant.parseRFC3339(UnsafeRawBufferPointer($0), allowCompactOffset: true) }) else {
                        throw BERReader.Failure(offset: offset, message: "original purchase date `\(text)` is not a date")
                    }
                    receipt.originalPurchaseDate = date
                }
            case 12:
                // Read leniently, as before it dated transactions: a receipt whose creation date is
                // unreadable still reads, its transactions undated.
                var text = (try? BERReader.text(try single(value))) ?? ""
                creationDate = text.withUTF8 { Instant.parseRFC3339(UnsafeRawBufferPointer($0), allowCompactOffset: true) }
                if creationDate == nil {
                    warnings.append(
                        ImportWarning(
                            path: "attribute 12",
                            message: "the receipt creation date `\(Diagnostic.excerpt(text))` is not a date; "
                                + "its transactions carry no signedDate"))
                }
            case 17:
                let set = try single(value)
                guard set.tag == 0x31 else { throw BERReader.Failure(offset: offset, message: "an in-app purchase receipt is not a SET") }
                receipt.transactions.append(try transaction(set.content, index: receipt.transactions.count, dropped: &dropped))
            default:
                dropped.insert(type)
            }
        }
        if !dropped.isEmpty {
            let names = dropped.sorted().map { "attribute \($0)" }
            warnings.append(
                ImportWarning(
                    path: "",
                    message: "not carried into the normalized receipt (entitle does not use them): "
                        + names.prefix(40).joined(separator: ", ") + (names.count > 40 ? " and \(names.count - 40) more" : "")))
        }
        guard sawBundle, !receipt.app.isEmpty else { throw BERReader.Failure(offset: 0, message: "the receipt has no bundle id (attribute 2)") }
        // Attributes come in any order: date the transactions once all are read.
        if let creationDate {
            for index in receipt.transactions.indices { receipt.transactions[index].signedDate = creationDate }
        }
        receipt.transactions = Transaction.mergingCopies(receipt.transactions)
        return receipt
    }

    /// Calls `body` with each attribute's type, value bytes and offset.
    private static func attributes(
        _ bytes: ArraySlice<UInt8>, _ body: (Int64, ArraySlice<UInt8>, Int) throws(BERReader.Failure) -> Void
    ) throws(BERReader.Failure) {
        var reader = BERReader(bytes, depth: 6)
        let set = try reader.next(tag: 0x31, "the receipt attribute SET")
        var items = BERReader(set.content, depth: 7)
        while !items.isAtEnd {
            let attribute = try items.next(tag: 0x30, "a receipt attribute SEQUENCE")
            var parts = BERReader(attribute.content, depth: 8)
            let type = try BERReader.integer(try parts.next(tag: 0x02, "an attribute type"))
            _ = try parts.next(tag: 0x02, "an attribute version")
            let value = try BERReader.octets(try parts.next(tag: 0x04, "an attribute value"))
            try body(type, value[...], attribute.offset)
        }
    }

    /// The one DER element an attribute value wraps.
    private static func single(_ value: ArraySlice<UInt8>) throws(BERReader.Failure) -> BERReader.Element {
        var reader = BERReader(value, depth: 9)
        return try reader.next()
    }

    private static func transaction(
        _ bytes: ArraySlice<UInt8>, index: Int, dropped: inout Set<Int64>
    ) throws(BERReader.Failure) -> Transaction {
        // Filled in as the attributes come; the ids and the purchase date are checked at the end.
        var transaction = Transaction(productId: "", transactionId: "", purchaseDate: .earliest)
        var purchase: Instant?
        var offerId: String?
        func date(_ value: ArraySlice<UInt8>, _ what: String) throws(BERReader.Failure) -> Instant? {
            let text = try BERReader.text(try single(value))
            guard !text.isEmpty else { return nil }
            var copy = text
            let parsed = copy.withUTF8 { Instant.parseRFC3339(UnsafeRawBufferPointer($0), allowCompactOffset: true) }
            guard let parsed else { throw BERReader.Failure(offset: 0, message: "in-app purchase \(index): \(what) `\(text)` is not a date") }
            return parsed
        }
        var reader = BERReader(bytes, depth: 10)
        while !reader.isAtEnd {
            let attribute = try reader.next(tag: 0x30, "an in-app purchase attribute")
            var parts = BERReader(attribute.content, depth: 11)
            let type = try BERReader.integer(try parts.next(tag: 0x02, "an attribute type"))
            _ = try parts.next(tag: 0x02, "an attribute version")
            let value = try BERReader.octets(try parts.next(tag: 0x04, "an attribute value"))[...]
            switch type {
            case 1701:
                let number = try BERReader.integer(try single(value))
                guard number >= 1, number <= Int64(ReceiptLimits.maxQuantity) else {
                    throw BERReader.Failure(
                        offset: attribute.offset,
                        message: "in-app purchase \(index): quantity \(number) is not from 1 to \(ReceiptLimits.maxQuantity)")
                }
                transaction.quantity = Int(number)
            case 1702: transaction.productId = try BERReader.text(try single(value))
            case 1703: transaction.transactionId = try BERReader.text(try single(value))
            case 1704: purchase = try date(value, "purchase date")
            case 1705: transaction.originalTransactionId = try BERReader.text(try single(value))
            case 1706: transaction.originalPurchaseDate = try date(value, "original purchase date")
            case 1708: transaction.expiresDate = try date(value, "expiry date")
            case 1712: transaction.cancellationDate = try date(value, "cancellation date")
            case 1713: transaction.isTrialPeriod = try BERReader.integer(try single(value)) != 0
            case 1719: transaction.isIntroOfferPeriod = try BERReader.integer(try single(value)) != 0
            case 1721: offerId = try BERReader.text(try single(value))
            default: dropped.insert(type)
            }
        }
        guard !transaction.productId.isEmpty, !transaction.transactionId.isEmpty, let purchase else {
            throw BERReader.Failure(offset: 0, message: "in-app purchase \(index) lacks a product id, transaction id or purchase date")
        }
        transaction.purchaseDate = purchase
        if let offerId, !offerId.isEmpty {
            transaction.offerType = .promotional
            transaction.offerId = offerId
        } else if transaction.isTrialPeriod || transaction.isIntroOfferPeriod {
            transaction.offerType = .introductory
        }
        return transaction
    }
}
