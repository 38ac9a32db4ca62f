import Foundation

/// Everything a service has heard about one customer, kept whole: every copy of every
/// transaction, every renewal entry, the ledger's consumptions and grants, and the notifications
/// already read, in one value that evaluates, routes and stores itself.
///
/// ```swift
/// var history = try database.history(for: customer) ?? CustomerHistory()
/// let imported = try verifier.receipt(notificationBody, name: "notification")
/// guard history.add(imported) else { return }        // a retry of a notification already read
/// try database.store(history.json, for: customer)    // the same content is the same bytes
/// let result = try history.evaluate(in: portfolio, app: "com.example.diagrams", at: Instant(Date()))
/// ```
///
/// - Adding is idempotent and the order of adding does not matter: the same data added twice, or
///   in another order, gives an equal history and the same ``json`` bytes (which is what lets a
///   service store it as one row and compare fingerprints). A transaction's copies that differ
///   are all kept: they are its snapshots, which evaluation reads by `signedDate`.
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
    @discardableResult
    public mutating func add(_ imported: ImportedReceipt) -> Bool {
        let ids = imported.notifications.compactMap(\.uuid)
        if !ids.isEmpty, ids.allSatisfy({ notifications.contains($0) }) { return false }
        var changed = false
        for id in ids where !notifications.contains(id) {
            notifications.append(id)
            changed = true
        }
        notifications.sort()
        return add(imported.receipt) || changed
    }

    /// Adds a receipt's entries to the receipt of its app, store and environment.
    ///
    /// - Returns: whether anything was new.
    @discardableResult
    public mutating func add(_ receipt: Receipt) -> Bool {
        let index: Int
        if let found = receipts.firstIndex(where: { Self.sameKind($0, receipt) }) {
            index = found
        } else {
            receipts.append(
                Receipt(
                    app: receipt.app, environment: receipt.environment, originalApplicationVersion: nil, originalPurchaseDate: nil,
                    store: receipt.store))
            receipts.sort { Self.order($0).lexicographicallyPrecedes(Self.order($1)) }
            index = receipts.firstIndex(where: { Self.sameKind($0, receipt) })!
        }
        let before = receipts[index]
        var merged = before
        merged.transactions = Self.union(merged.transactions, receipt.transactions, key: \.jsonOutput)
        merged.renewals = Self.union(merged.renewals, receipt.renewals, key: \.jsonOutput)
        merged.consumptions = Self.union(merged.consumptions, receipt.consumptions, key: \.jsonOutput)
        merged.grants = Self.union(merged.grants, receipt.grants, key: \.jsonOutput)
        // Facts of the app: the same for every copy; if two disagree, the smaller by its text
        // (whatever came first), so the order of adding does not matter.
        merged.originalApplicationVersion = Self.smaller(merged.originalApplicationVersion, receipt.originalApplicationVersion)
        merged.originalPurchaseDate = [merged.originalPurchaseDate, receipt.originalPurchaseDate].compactMap { $0 }.min()
        merged.appTransactionId = Self.smaller(merged.appTransactionId, receipt.appTransactionId)
        merged.originalPlatform = [merged.originalPlatform, receipt.originalPlatform].compactMap { $0 }.min()
        merged.preorderDate = [merged.preorderDate, receipt.preorderDate].compactMap { $0 }.min()
        // Consent rescinded once stays rescinded: the earliest instant any copy says.
        merged.consentRescinded = [merged.consentRescinded, receipt.consentRescinded].compactMap { $0 }.min()
        receipts[index] = merged
        return merged != before
    }

    /// Adds consumptions a service recorded against the app's balances (its ledger).
    @discardableResult
    public mutating func add(_ consumptions: [Consumption], app: String) -> Bool {
        add(Receipt(app: app, consumptions: consumptions))
    }

    /// Evaluates the customer at an instant: every receipt kept, as
    /// `Portfolio.evaluate(app:receipts:at:)` does.
    public func evaluate(
        in portfolio: Portfolio, app: String, at: Instant, environments: Set<String>? = nil, account: String? = nil,
        storefront: String? = nil
    ) throws(PortfolioError) -> Entitlements {
        try portfolio.evaluate(
            app: app, receipts: receipts, at: at, environments: environments, account: account, storefront: storefront)
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

    /// `existing` and `added`, each entry once, sorted by its JSON's bytes.
    private static func union<Entry>(_ existing: [Entry], _ added: [Entry], key: (Entry) -> JSONOutput) -> [Entry] {
        guard !added.isEmpty else { return existing }
        var byText: [String: Entry] = [:]
        for entry in existing + added { byText[key(entry).renderedOnOneLine()] = entry }
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
        for receipt in try container.decode([Receipt].self, forKey: .receipts) { add(receipt) }
        notifications = Array(Set(try container.decode([String].self, forKey: .notifications))).sorted()
    }

    /// Encodes the history as ``json`` holds it: its notifications and its receipts.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(notifications, forKey: .notifications)
        try container.encode(receipts, forKey: .receipts)
    }
}
