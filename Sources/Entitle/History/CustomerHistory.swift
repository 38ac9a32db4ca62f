import Foundation

/// Everything a service has heard about one customer, kept whole: every copy of every
/// transaction, every renewal entry, the ledger's consumptions and grants, and the notifications
/// already read, in one value that evaluates, routes and stores itself.
///
/// ```swift
/// var history = try database.history(for: customer) ?? CustomerHistory()
/// let imported = try verifier.receipt(notificationBody, name: "notification")
/// guard try history.add(imported) else { return }    // a retry of a notification already read
/// try database.store(history.json, for: customer)    // the same content is the same bytes
/// let result = try history.evaluate(in: portfolio, app: "com.example.diagrams", at: Instant(Date()))
/// ```
///
/// - Adding is idempotent and the order of adding does not matter: the same data added twice, or
///   in another order, gives an equal history and the same ``json`` bytes (which is what lets a
///   service store it as one row and compare fingerprints). A transaction's copies that differ
///   are all kept: they are its snapshots, which evaluation reads by `signedDate`.
/// - Whatever is added reads back: ``json`` decodes to an equal history, always. Data the
///   history cannot keep so (a consumption or grant id it holds with other content, a value out
///   of range) is refused with a ``ReceiptError``, and the history stays as it was.
/// - Receipts are kept one per app, store and environment; a notification is remembered by its
///   `notificationUUID`, so a retry adds nothing.
/// - ``keys`` are what routes incoming data to the customer: original transaction ids, app
///   account tokens and the accounts of other stores.
public struct CustomerHistory: Hashable, Sendable {
    /// The receipts, one per app, store and environment, each entry once, in a fixed order.
    public private(set) var receipts: [Receipt] = []
    /// The UUIDs of the notifications read, sorted.
    public private(set) var notifications: [String] = []

    /// An empty history.
    public init() {}

    /// The values that route data to this customer.
    public struct Keys: Hashable, Sendable, Codable {
        /// Every original transaction id (a subscription chain, a purchase), sorted.
        public var originalTransactionIds: [String]
        /// Every app account token the App Store carried back, sorted.
        public var appAccountTokens: [String]
        /// Every account of another store's data (a Stripe customer, a Play obfuscated account), sorted.
        public var accounts: [String]
    }

    /// The values that route data to this customer.
    public var keys: Keys {
        var originals: Set<String> = []
        var tokens: Set<String> = []
        var accounts: Set<String> = []
        for receipt in receipts {
            for transaction in receipt.transactions {
                originals.insert(transaction.originalTransactionId ?? transaction.transactionId)
                if let token = transaction.appAccountToken { tokens.insert(token) }
                if let account = transaction.account { accounts.insert(account) }
            }
            for renewal in receipt.renewals {
                originals.insert(renewal.originalTransactionId)
                if let token = renewal.appAccountToken { tokens.insert(token) }
                if let account = renewal.account { accounts.insert(account) }
            }
        }
        return Keys(originalTransactionIds: originals.sorted(), appAccountTokens: tokens.sorted(), accounts: accounts.sorted())
    }

    /// Adds what a store's data held, and remembers its notifications.
    ///
    /// - Returns: whether anything was new: `false` for a notification already read (by its UUID)
    ///   or data whose every entry the history has.
    /// - Throws: ``ReceiptError`` when the data cannot join the history (see ``add(_:)-(Receipt)``);
    ///   the history is then as it was, its notifications included.
    @discardableResult
    public mutating func add(_ imported: ImportedReceipt) throws(ReceiptError) -> Bool {
        let ids = imported.notifications.compactMap(\.uuid)
        if !ids.isEmpty, ids.allSatisfy({ notifications.contains($0) }) { return false }
        let added = try add(imported.receipt)
        var changed = false
        for id in ids where !notifications.contains(id) {
            notifications.append(id)
            changed = true
        }
        notifications.sort()
        return added || changed
    }

    /// Adds a receipt's entries to the receipt of its app, store and environment.
    ///
    /// What the history holds always reads back: ``json`` decodes to an equal history. So data
    /// the normalized decoder would refuse in the merged receipt is refused here, and the history
    /// stays as it was:
    /// - a consumption or a grant whose `id` the history (or the data itself) holds with other
    ///   content (`conflicting-consumption`, `conflicting-grant`): an id names one record, so a
    ///   retried spend must repeat what was recorded, and a changed grant needs a new id;
    /// - a value outside ``ReceiptLimits`` (a receipt built in code may hold one), or more entries
    ///   of one receipt than the limits allow.
    ///
    /// Refusing a copy is symmetric, so data that is accepted in one order is accepted in every
    /// order, with the same ``json`` bytes.
    ///
    /// - Returns: whether anything was new.
    /// - Throws: ``ReceiptError`` saying what could not be kept: for a conflicting id, its `path`
    ///   names the entry of `receipt`; for a value out of range, the place in the merged receipt.
    @discardableResult
    public mutating func add(_ receipt: Receipt) throws(ReceiptError) -> Bool {
        let index = receipts.firstIndex(where: { Self.sameKind($0, receipt) })
        let before =
            index.map { receipts[$0] }
            ?? Receipt(
                app: receipt.app, environment: receipt.environment, originalApplicationVersion: nil, originalPurchaseDate: nil,
                store: receipt.store)
        var merged = before
        merged.transactions = try Self.union(merged.transactions, receipt.transactions, key: \.jsonOutput)
        merged.renewals = try Self.union(merged.renewals, receipt.renewals, key: \.jsonOutput)
        merged.consumptions = try Self.union(
            merged.consumptions, receipt.consumptions, key: \.jsonOutput,
            record: RecordIds(id: \.id, what: "consumption", list: "consumptions", code: .conflictingConsumption))
        merged.grants = try Self.union(
            merged.grants, receipt.grants, key: \.jsonOutput, record: RecordIds(id: \.id, what: "grant", list: "grants", code: .conflictingGrant))
        // Refunds and voids, each fact once: evaluation applies them to the purchases they name.
        merged.revocations = try Self.union(merged.revocations, receipt.revocations, key: \.jsonOutput)
        // Facts of the app: the same for every copy; if two disagree, the smaller by its text
        // (whatever came first), so the order of adding does not matter.
        merged.originalApplicationVersion = Self.smaller(merged.originalApplicationVersion, receipt.originalApplicationVersion)
        merged.originalPurchaseDate = [merged.originalPurchaseDate, receipt.originalPurchaseDate].compactMap { $0 }.min()
        merged.appTransactionId = Self.smaller(merged.appTransactionId, receipt.appTransactionId)
        merged.originalPlatform = [merged.originalPlatform, receipt.originalPlatform].compactMap { $0 }.min()
        merged.preorderDate = [merged.preorderDate, receipt.preorderDate].compactMap { $0 }.min()
        // Consent rescinded once stays rescinded: the earliest instant any copy says.
        merged.consentRescinded = [merged.consentRescinded, receipt.consentRescinded].compactMap { $0 }.min()
        guard merged != before || index == nil else { return false }
        // What json writes is read back by the normalized decoder: the merged receipt must pass it.
        do {
            _ = try ReceiptDecoder.decode(Data(merged.jsonOutput.compact().utf8), name: "<history>")
        } catch {
            throw ReceiptError(
                code: error.code, message: "the history cannot keep this data: \(error.message)", path: error.path, help: error.help)
        }
        if let index {
            receipts[index] = merged
        } else {
            receipts.append(merged)
            receipts.sort { Self.order($0).lexicographicallyPrecedes(Self.order($1)) }
        }
        return merged != before
    }

    /// Adds consumptions a service recorded against the app's balances (its ledger).
    ///
    /// - Returns: whether anything was new.
    /// - Throws: ``ReceiptError`` when a consumption's id is kept with other content, or a
    ///   consumption is out of range (``add(_:)-(Receipt)``); nothing is added then.
    @discardableResult
    public mutating func add(_ consumptions: [Consumption], app: String) throws(ReceiptError) -> Bool {
        try add(Receipt(app: app, consumptions: consumptions))
    }

    /// Evaluates the customer at an instant: every receipt kept, as
    /// ``Portfolio/evaluate(app:receipts:at:options:)`` does.
    public func evaluate(
        in portfolio: Portfolio, app: String, at: Instant, options: EvaluationOptions = .all
    ) throws(PortfolioError) -> Entitlements {
        try portfolio.evaluate(app: app, receipts: receipts, at: at, options: options)
    }

    /// Explains what the customer has at an instant, and why: every receipt kept, as
    /// ``Portfolio/explain(app:receipts:at:options:)`` does.
    public func explain(
        in portfolio: Portfolio, app: String, at: Instant, options: EvaluationOptions = .all
    ) throws(PortfolioError) -> Explanation {
        try portfolio.explain(app: app, receipts: receipts, at: at, options: options)
    }

    /// The history as JSON, `{"notifications": [...], "receipts": [...]}`, the receipts as
    /// normalized receipts: the same content gives the same bytes, so it is a fingerprint too.
    public var json: String {
        JSONOutput.object([
            ("notifications", .array(notifications.map(JSONOutput.string))),
            ("receipts", .array(receipts.map(\.jsonOutput))),
        ]).rendered() + "\n"
    }

    // MARK: Order

    private static func sameKind(_ a: Receipt, _ b: Receipt) -> Bool {
        a.app == b.app && a.store == b.store && a.environment == b.environment
    }

    private static func order(_ receipt: Receipt) -> [UInt8] {
        Array("\(receipt.app)\u{0}\(receipt.store.rawValue)\u{0}\(receipt.environment ?? "")".utf8)
    }

    private static func smaller(_ a: String?, _ b: String?) -> String? {
        guard let a else { return b }
        guard let b else { return a }
        return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? a : b
    }

    /// What makes records of one id one record (consumptions, grants), for ``union(_:_:key:record:)``.
    private struct RecordIds<Entry> {
        var id: (Entry) -> String
        var what: String
        var list: String
        var code: DiagnosticCode
    }

    /// `existing` and `added`, each entry once, sorted by its JSON's bytes. With `record`, a
    /// record of `added` whose id `existing` or an earlier record of `added` holds with other
    /// content is refused, located in `added`.
    private static func union<Entry>(
        _ existing: [Entry], _ added: [Entry], key: (Entry) -> JSONOutput, record: RecordIds<Entry>? = nil
    ) throws(ReceiptError) -> [Entry] {
        guard !added.isEmpty else { return existing }
        var byText: [String: Entry] = [:]
        // Each id's content as first held: by the history (`nil`) or by the record at an index of `added`.
        var held: [String: (text: String, index: Int?)] = [:]
        for entry in existing {
            let text = key(entry).renderedOnOneLine()
            byText[text] = entry
            if let record { held[record.id(entry)] = (text, nil) }
        }
        for (index, entry) in added.enumerated() {
            let text = key(entry).renderedOnOneLine()
            byText[text] = entry
            guard let record else { continue }
            let id = record.id(entry)
            guard let kept = held[id] else {
                held[id] = (text, index)
                continue
            }
            guard kept.text == text else {
                let (what, list) = (record.what, record.list)
                let message =
                    kept.index == nil
                    ? "the history holds \(what) `\(Diagnostic.excerpt(id))` with other content"
                    : "\(what) `\(Diagnostic.excerpt(id))` appears twice with different content"
                throw ReceiptError(
                    code: record.code, message: message, path: "\(list)[\(index)]",
                    help: (kept.index.map { "the first is \(list)[\($0)]; " } ?? "")
                        + "an id names one \(what): repeat what was recorded (\(Diagnostic.excerpt(kept.text))), or record the change under a new id")
            }
        }
        return byText.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map(\.value)
    }
}

extension CustomerHistory: Codable {
    private enum CodingKeys: String, CodingKey {
        case notifications, receipts
    }

    /// Decodes a history stored as ``json``, re-adding each receipt (held to the normalized
    /// decoder's checks), so a stored history comes back equal and in its fixed order.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        for receipt in try container.decode([Receipt].self, forKey: .receipts) {
            do {
                try add(receipt)
            } catch {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: container.codingPath + [CodingKeys.receipts], debugDescription: error.description,
                        underlyingError: error))
            }
        }
        notifications = Array(Set(try container.decode([String].self, forKey: .notifications))).sorted()
    }

    /// Encodes the history as ``json`` holds it: its notifications and its receipts.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(notifications, forKey: .notifications)
        try container.encode(receipts, forKey: .receipts)
    }
}
