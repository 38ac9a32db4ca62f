import Entitle
import Foundation

/// A customer told as a story: events in time order, each naming a catalog product, offer,
/// currency or feature, from which entitle writes the receipts the stores would have sent
/// (transactions, renewal chains with the catalog's durations, renewal entries, snapshots of what
/// changed, consumptions and grants).
///
/// ```json
/// [
///   { "at": "2026-03-01", "subscribe": "com.example.diagrams.sync.monthly", "introOffer": true, "renewals": 2 },
///   { "at": "2026-05-15", "refund": "last" },
///   { "at": "2026-06-01", "buy": "com.example.diagrams.stencils.10", "quantity": 2 },
///   { "at": "2026-06-02", "consume": { "stencils": 5 } }
/// ]
/// ```
///
/// Reading checks every event against the app's catalog and reports every problem located (a
/// name that is not the catalog's gets a "did you mean"); writing is deterministic (transaction
/// ids `story-1`, `story-2`, ... in the order written), so the same story gives the same bytes.
/// Each event is one of:
///
/// - `buy` (a non-consumable, consumable or non-renewing product; `quantity`, `familyShared`;
///   `app` writes it into another app's receipt, as an upgrade's prerequisite);
/// - `subscribe` (an auto-renewable: `renewals` periods after the first, `introOffer` or `offer`
///   for the first, `willRenew`, `billingRetry` and `grace` for the chain's renewal entry,
///   `familyShared`); a group subscribed before continues its chain;
/// - `upgrade`, `downgrade`, `crossgrade` (to a product of the group of a subscription active at
///   the instant: an upgrade, and a crossgrade to the same duration, at once, the old period
///   marked upgraded; a downgrade, and a crossgrade to another duration, at the next renewal);
/// - `refund` (`last`, a product id or a transaction id; `percentage` below 100 refunds part),
///   `reverseRefund` (the same names), `extend` (a subscription's current period by `days`);
/// - `consume` (`{"currency": amount}`), `grant` (features, for `for` or `until`);
/// - `download` (the app first got on a platform, `iOS`, `macOS`, `tvOS` or `visionOS`, with the
///   app's `version`: the receipt's original purchase, platform and version, which grandfather
///   rules read), `rescindConsent` (`true`: the customer rescinds consent for the app).
///
/// `buy` and `subscribe` take `items`, the SKUs of an Advanced Commerce product bought (each
/// period of a subscription lists them); `refund` with `items` refunds those SKUs in full and
/// leaves the rest of the purchase.
///
/// What changes a transaction written earlier (a refund, its reversal, an extension, an upgrade)
/// is a new signed copy of it, as the App Store sends one, signed at the event's instant.
struct Story {
    static let actions = [
        "buy", "subscribe", "upgrade", "downgrade", "crossgrade", "refund", "reverseRefund", "extend", "consume", "grant", "download",
        "rescindConsent",
    ]
    static let commonKeys = ["$comment", "at", "app", "store"]
    static let keysOf: [String: [String]] = [
        "buy": ["quantity", "familyShared", "items"],
        "subscribe": ["renewals", "introOffer", "offer", "willRenew", "billingRetry", "grace", "familyShared", "items"],
        "upgrade": ["renewals", "willRenew", "billingRetry", "grace"],
        "downgrade": ["renewals", "willRenew", "billingRetry", "grace"],
        "crossgrade": ["renewals", "willRenew", "billingRetry", "grace"],
        "refund": ["percentage", "items"],
        "reverseRefund": [],
        "extend": ["days"],
        "consume": [],
        "grant": ["for", "until"],
        "download": ["version"],
        "rescindConsent": [],
    ]
    /// The most renewals one event writes.
    static let maximumRenewals = 1_000
    /// The most events a story holds.
    static let maximumEvents = 1_000
    /// The most transactions (copies included) a story writes.
    static let maximumTransactions = 10_000
    /// The grace period `grace: true` gives: sixteen days, as App Store Connect's default.
    static let defaultGrace = ISODuration("P16D")!

    /// The apps a story that names none may be told for: those whose catalog sells every product
    /// its own events name (events with an `app` buy from another app), in portfolio order; none
    /// when the events name no product.
    static func apps(toldBy node: JSONNode, portfolio: Portfolio) -> [String] {
        var names: [(name: String, store: Store?)] = []
        guard case .array(let events) = node.value else { return [] }
        for event in events {
            guard case .object(let members) = event.value, !members.contains(where: { $0.key == "app" }) else { continue }
            var store: Store?
            if case .string(let text)? = members.first(where: { $0.key == "store" })?.value.value { store = Store(rawValue: text) }
            for member in members where ["buy", "subscribe", "upgrade", "downgrade", "crossgrade"].contains(member.key) {
                if case .string(let name) = member.value.value { names.append((name, store)) }
            }
        }
        guard !names.isEmpty else { return [] }
        return portfolio.catalogs.filter { catalog in
            names.allSatisfy { name in
                if case .found = catalog.product(named: name.name, in: name.store) { return true }
                return false
            }
        }.map(\.app)
    }

    /// The receipts `node` (a story) tells for `app`, or `nil` with every problem reported.
    static func receipts(_ node: JSONNode, path: String, app: String, portfolio: Portfolio, reader: inout JSONShapeReader) -> [Receipt]? {
        guard let catalog = portfolio.catalog(for: app) else {
            reader.report(
                .unknownApp, "no catalog for app `\(app)`: a story names its products", at: node.offset, path: path,
                help: Suggestion.help(for: app, in: portfolio.apps) ?? "the catalogs are for \(CatalogChecker.list(portfolio.apps))")
            return nil
        }
        guard let events = reader.array(node, path: path, expected: "an array of events") else { return nil }
        guard events.count <= maximumEvents else {
            reader.report(.limitExceeded, "a story holds at most \(maximumEvents) events, this one \(events.count)", at: node.offset, path: path)
            return nil
        }
        var writer = StoryWriter(app: app, catalog: catalog, portfolio: portfolio)
        let before = reader.diagnostics.count
        var previous: (at: Instant, offset: Int)?
        for (index, event) in events.enumerated() {
            let eventPath = "\(path)[\(index)]"
            guard let at = writer.event(event, path: eventPath, reader: &reader) else { continue }
            if let previous, at < previous.at {
                let (line, column) = reader.lines.location(of: previous.offset)
                reader.report(
                    .storyEvent, "events are told in time order: \(at.rfc3339) is before the event at line \(line), column \(column)",
                    at: event.offset, path: eventPath + ".at", help: "move the event before that one")
            }
            previous = (at, event.offset)
        }
        guard reader.diagnostics.count == before || !reader.diagnostics[before...].contains(where: \.isError) else { return nil }
        return writer.receipts
    }
}

/// Writes the receipts of a story, event by event.
struct StoryWriter {
    let app: String
    let catalog: CompiledCatalog
    let portfolio: Portfolio

    /// A receipt being written: its app and store, and its transactions in the order written.
    private struct Written {
        var app: String
        var store: Store
        var transactions: [Transaction] = []
        /// The positions of each transaction's signed copies, by transaction id.
        var copies: [String: [Int]] = [:]
        var consumptions: [Consumption] = []
        var grants: [Grant] = []
    }

    /// A subscription chain: its receipt, group, original id, the product it renews to and its
    /// renewal entry's words.
    private struct Chain {
        var receipt: Int
        var group: String
        var originalId: String
        var product: CatalogProduct
        /// Indices of its transactions in the receipt, in purchase order.
        var transactions: [Int] = []
        /// Its renewal entries, one signed at each event that subscribes or changes the plan.
        var entries: [Renewal] = []
    }

    private var written: [Written] = []
    private var chains: [Chain] = []
    /// The app transaction's facts a `download` tells, and when consent was rescinded.
    private var download: (at: Instant, platform: AppPlatform, version: String?)?
    private var consentRescinded: Instant?
    private var next = 0
    /// Transactions written so far, copies included.
    private var count = 0

    /// Whether `more` transactions fit in the story; reports when not.
    private func room(for more: Int64, _ event: Event, reader: inout JSONShapeReader) -> Bool {
        guard Int64(count) + more > Int64(Story.maximumTransactions) else { return true }
        reader.report(
            .limitExceeded, "a story writes at most \(Story.maximumTransactions) transactions; this event would make \(Int64(count) + more)",
            at: event.action.keyOffset, path: event.actionPath)
        return false
    }

    init(app: String, catalog: CompiledCatalog, portfolio: Portfolio) {
        self.app = app
        self.catalog = catalog
        self.portfolio = portfolio
        written.append(Written(app: app, store: .appStore))
    }

    /// The receipts written: the app's App Store receipt first, then the others as first used.
    var receipts: [Receipt] {
        written.enumerated().map { index, receipt in
            let renewals = chains.filter { $0.receipt == index }.flatMap(\.entries)
            var made = Receipt(
                app: receipt.app, transactions: receipt.transactions, renewals: renewals, consumptions: receipt.consumptions,
                grants: receipt.grants, store: receipt.store)
            // The app transaction's facts are the app's App Store receipt's (the first).
            if index == 0 {
                made.originalPurchaseDate = download?.at
                made.originalPlatform = download?.platform
                made.originalApplicationVersion = download?.version
                made.consentRescinded = consentRescinded
            }
            return made
        }
    }

    private mutating func id(_ kind: String = "") -> String {
        next += 1
        return "story-\(kind)\(next)"
    }

    private mutating func receipt(app: String, store: Store) -> Int {
        if let index = written.firstIndex(where: { $0.app == app && $0.store == store }) { return index }
        written.append(Written(app: app, store: store))
        return written.count - 1
    }

    // MARK: Reading an event

    /// Reads and writes one event; its instant, or `nil` when it cannot be read.
    mutating func event(_ node: JSONNode, path: String, reader: inout JSONShapeReader) -> Instant? {
        guard case .object(let members) = node.value else {
            reader.wrongType(node, expected: "an event object (`at` and one of \(CatalogChecker.list(Story.actions)))", path: path)
            return nil
        }
        let named = members.filter { Story.actions.contains($0.key) }
        guard named.count == 1, let action = named.first else {
            if named.isEmpty {
                reader.report(
                    .missingKey, "an event says what happened: one of \(CatalogChecker.list(Story.actions))", at: node.offset, path: path,
                    help: members.lazy.compactMap { Suggestion.help(for: $0.key, in: Story.actions) }.first)
            } else {
                reader.report(
                    .badValue, "an event is one thing that happened, not \(CatalogChecker.list(named.map(\.key)))",
                    at: named[1].keyOffset, path: CatalogChecker.path(path, key: named[1].key), help: "write each as its own event")
            }
            return nil
        }
        let allowed = Story.commonKeys + [action.key] + (Story.keysOf[action.key] ?? [])
        guard let fields = reader.object(node, path: path, allowed: allowed, required: ["at"], what: "`\(action.key)` event") else { return nil }
        guard let at = fields["at"].flatMap({ reader.instant($0.value, path: path + ".at", dateAlone: true) }) else { return nil }
        var event = Event(at: at, path: path, fields: fields, action: action)
        switch action.key {
        case "buy": buy(&event, reader: &reader)
        case "subscribe": subscribe(&event, reader: &reader)
        case "upgrade", "downgrade", "crossgrade": change(&event, reader: &reader)
        case "refund", "reverseRefund": refund(&event, reader: &reader)
        case "extend": extend(&event, reader: &reader)
        case "consume": consume(&event, reader: &reader)
        case "download": downloaded(&event, reader: &reader)
        case "rescindConsent": rescind(&event, reader: &reader)
        default: grant(&event, reader: &reader)
        }
        return at
    }

    /// An event being read.
    struct Event {
        var at: Instant
        var path: String
        var fields: [String: JSONMember]
        var action: JSONMember
        var actionPath: String { CatalogChecker.path(path, key: action.key) }

        func path(_ key: String) -> String { CatalogChecker.path(path, key: key) }
    }

    private func bool(_ event: Event, _ key: String, reader: inout JSONShapeReader) -> Bool? {
        guard let node = event.fields[key]?.value else { return nil }
        guard case .bool(let value) = node.value else {
            reader.wrongType(node, expected: "`true` or `false`", path: event.path(key))
            return nil
        }
        return value
    }

    private func integer(_ event: Event, _ key: String, in range: ClosedRange<Int64>, reader: inout JSONShapeReader) -> Int64? {
        guard let node = event.fields[key]?.value else { return nil }
        guard case .number(let number) = node.value, let value = number.integer else {
            reader.wrongType(node, expected: "a whole number", path: event.path(key))
            return nil
        }
        guard range.contains(value) else {
            reader.report(
                value > range.upperBound ? .limitExceeded : .badValue,
                "`\(key)` is \(range.lowerBound) to \(range.upperBound), not \(value)", at: node.offset, path: event.path(key))
            return nil
        }
        return value
    }

    /// The product an event names: of the app's catalog (`store` picks among products of one id
    /// in several stores), or of another app's (`app`).
    private func product(_ event: Event, reader: inout JSONShapeReader) -> (product: CatalogProduct, app: String)? {
        guard let name = reader.nonEmptyString(event.action.value, path: event.actionPath) else { return nil }
        var store: Store?
        if let node = event.fields["store"]?.value {
            guard let text = reader.enumValue(node, path: event.path("store"), names: Store.allCases.map(\.rawValue), what: "store") else {
                return nil
            }
            store = Store(rawValue: text)
        }
        var owner = catalog
        if let node = event.fields["app"]?.value {
            guard let other = reader.nonEmptyString(node, path: event.path("app")) else { return nil }
            guard let found = portfolio.catalog(for: other) else {
                reader.report(
                    .unknownApp, "no catalog for app `\(other)`", at: node.offset, path: event.path("app"),
                    help: Suggestion.help(for: other, in: portfolio.apps) ?? "the catalogs are for \(CatalogChecker.list(portfolio.apps))")
                return nil
            }
            owner = found
        }
        // By key (`play:pro:yearly`) or by id, as every product name is read.
        let naming = owner.product(named: name, in: store)
        switch naming {
        case .found(let product): return (product, owner.app)
        case .ambiguous(let matches):
            reader.report(
                .badValue, "`\(name)` is a product of \(CatalogChecker.list(matches.map(\.store.rawValue), conjunction: "and"))",
                at: event.action.value.offset, path: event.actionPath,
                help: "say which with `\"store\": \"\(matches[1].store.rawValue)\"`, or name it by its key (`\(matches[1].key)`)")
        case .unknown:
            let (message, help) = owner.problem(naming: name, naming, in: store)!
            reader.report(.unknownProduct, message, at: event.action.value.offset, path: event.actionPath, help: help)
        }
        return nil
    }

    // MARK: Purchases

    private mutating func buy(_ event: inout Event, reader: inout JSONShapeReader) {
        guard let (product, owner) = self.product(event, reader: &reader) else { return }
        guard product.type != .autoRenewableSubscription else {
            reader.report(
                .badValue, "`\(product.id)` is an auto-renewable subscription: subscribe to it", at: event.action.keyOffset,
                path: event.actionPath, help: "write `\"subscribe\": \"\(product.id)\"`")
            return
        }
        let errors = reader.diagnostics.count
        let maximum = product.type == .nonConsumable ? 1 : Int64(ReceiptLimits.maxQuantity)
        let quantity = integer(event, "quantity", in: 1...maximum, reader: &reader) ?? 1
        let shared = bool(event, "familyShared", reader: &reader) ?? false
        if shared, !checkShared(product, event, reader: &reader) { return }
        let items = self.items(event, of: product, reader: &reader)
        guard reader.diagnostics.count == errors, room(for: 1, event, reader: &reader) else { return }
        count += 1
        let index = receipt(app: owner, store: product.store)
        let transaction = Transaction(
            productId: product.id, transactionId: id(), purchaseDate: event.at, quantity: Int(quantity),
            ownership: shared ? .familyShared : .purchased, items: items)
        written[index].transactions.append(transaction)
    }

    private func checkShared(_ product: CatalogProduct, _ event: Event, reader: inout JSONShapeReader) -> Bool {
        guard product.store == .appStore else {
            reader.report(
                .notForStore, "Family Sharing is the App Store's, not `\(product.store.rawValue)`'s", at: event.fields["familyShared"]!.keyOffset,
                path: event.path("familyShared"))
            return false
        }
        return true
    }

    private mutating func subscribe(_ event: inout Event, reader: inout JSONShapeReader) {
        guard let (product, owner) = self.product(event, reader: &reader) else { return }
        guard product.type == .autoRenewableSubscription, let group = product.group, let period = product.duration else {
            reader.report(
                .badValue, "`\(product.id)` is a \(product.type.rawValue): buy it", at: event.action.keyOffset, path: event.actionPath,
                help: "write `\"buy\": \"\(product.id)\"`")
            return
        }
        let errors = reader.diagnostics.count
        let renewals = integer(event, "renewals", in: 0...Int64(Story.maximumRenewals), reader: &reader) ?? 0
        let shared = bool(event, "familyShared", reader: &reader) ?? false
        if shared, !checkShared(product, event, reader: &reader) { return }
        let items = self.items(event, of: product, reader: &reader)
        // The first periods: at the intro price, with an offer, or plain.
        var first: (mode: IntroOfferMode, duration: ISODuration, periods: Int, offer: SubscriptionOffer?)?
        if bool(event, "introOffer", reader: &reader) == true {
            guard let intro = product.introOffer else {
                reader.report(
                    .badValue, "`\(product.id)` has no intro offer", at: event.fields["introOffer"]!.value.offset, path: event.path("introOffer"))
                return
            }
            // Pay as you go: a transaction each period while the offer lasts.
            let periods = intro.mode == .payAsYouGo ? max(1, intro.duration.nominalDays / max(1, period.nominalDays)) : 1
            first = (intro.mode, intro.mode == .payAsYouGo ? period : intro.duration, periods, nil)
        }
        if let node = event.fields["offer"]?.value {
            guard let name = reader.nonEmptyString(node, path: event.path("offer")) else { return }
            guard first == nil else {
                reader.report(.badValue, "a purchase takes one offer: `introOffer` or `offer`", at: node.offset, path: event.path("offer"))
                return
            }
            guard let offer = product.offers.first(where: { $0.id == name }) else {
                reader.report(
                    .unknownProduct, "`\(name)` is not an offer of `\(product.id)`", at: node.offset, path: event.path("offer"),
                    help: Suggestion.help(for: name, in: product.offers.map(\.id))
                        ?? (product.offers.isEmpty ? "`\(product.id)` has no offers" : nil))
                return
            }
            first = (offer.mode, offer.duration, offer.mode == .payAsYouGo ? max(1, offer.periods ?? 1) : 1, offer)
        }
        guard reader.diagnostics.count == errors, room(for: renewals + 1, event, reader: &reader) else { return }
        let index = receipt(app: owner, store: product.store)
        if let active = activeChain(group: group, receipt: index, at: event.at) {
            reader.report(
                .storyEvent,
                "`\(chains[active].product.id)` of group `\(group)` is still subscribed at \(event.at.rfc3339): change plans within a group",
                at: event.action.keyOffset, path: event.actionPath,
                help: "write `upgrade`, `downgrade` or `crossgrade`, or let the subscription end first (`willRenew: false`)")
            return
        }
        // A group subscribed before goes on with its chain: the App Store keeps one original
        // transaction per group.
        let chain: Int
        if let found = chains.firstIndex(where: { $0.receipt == index && $0.group == group }) {
            chain = found
            chains[chain].product = product
        } else {
            chains.append(Chain(receipt: index, group: group, originalId: "", product: product))
            chain = chains.count - 1
        }
        var start = event.at
        var remaining = renewals + 1
        let receiptIndex = chains[chain].receipt
        let firstWritten = written[receiptIndex].transactions.count
        defer {
            // Each period of the event lists the SKUs bought.
            for position in firstWritten..<written[receiptIndex].transactions.count { written[receiptIndex].transactions[position].items = items }
        }
        if let first {
            var periods = first.periods
            while periods > 0, remaining > 0 {
                let end = first.duration.added(to: start)
                let transaction = Transaction(
                    productId: product.id, transactionId: "", purchaseDate: start, expiresDate: end,
                    isTrialPeriod: first.offer == nil && first.mode == .freeTrial, isIntroOfferPeriod: first.offer == nil && first.mode != .freeTrial,
                    ownership: shared ? .familyShared : .purchased,
                    offerType: first.offer.map { $0.type == .winBack ? .winBack : .promotional } ?? .introductory, offerId: first.offer?.id)
                append(transaction, chain: chain)
                (start, periods, remaining) = (end, periods - 1, remaining - 1)
            }
        }
        writePeriods(product, period: period, from: start, count: remaining, chain: chain, shared: shared)
        renewalWords(&event, chain: chain, reader: &reader)
    }

    /// Appends `count` plain periods of `product` to a chain from `start`.
    private mutating func writePeriods(_ product: CatalogProduct, period: ISODuration, from start: Instant, count: Int64, chain: Int, shared: Bool) {
        var start = start
        for _ in 0..<count where start < Instant.latest {
            let end = period.added(to: start)
            append(
                Transaction(
                    productId: product.id, transactionId: "", purchaseDate: start, expiresDate: end,
                    ownership: shared ? .familyShared : .purchased),
                chain: chain)
            start = end
        }
    }

    private mutating func append(_ transaction: Transaction, chain: Int) {
        var transaction = transaction
        transaction.transactionId = id()
        if chains[chain].originalId.isEmpty { chains[chain].originalId = transaction.transactionId }
        transaction.originalTransactionId = chains[chain].originalId
        let receipt = chains[chain].receipt
        written[receipt].transactions.append(transaction)
        chains[chain].transactions.append(written[receipt].transactions.count - 1)
        count += 1
    }

    /// The chain's renewal entry from this event on, signed at its instant: the product it renews
    /// to, auto-renew, billing retry and the grace period past the last period written.
    private mutating func renewalWords(_ event: inout Event, chain: Int, reader: inout JSONShapeReader) {
        let willRenew = bool(event, "willRenew", reader: &reader) ?? true
        let billingRetry = bool(event, "billingRetry", reader: &reader) ?? false
        var grace: ISODuration?
        if let node = event.fields["grace"]?.value {
            switch node.value {
            case .bool(let value): grace = value ? Story.defaultGrace : nil
            case .string(let text):
                guard let duration = ISODuration(text), duration.isPositive, duration.isWithinLimit else {
                    reader.report(
                        .badDuration, "`\(Diagnostic.excerpt(text))` is not a grace period", at: node.offset, path: event.path("grace"),
                        help: "`true` (16 days) or an ISO 8601 duration such as `P3D`, `P16D`, `P28D`")
                    return
                }
                grace = duration
            default: reader.wrongType(node, expected: "`true`, `false` or an ISO 8601 duration", path: event.path("grace"))
            }
        }
        let receipt = chains[chain].receipt
        let last = chains[chain].transactions.last.flatMap { written[receipt].transactions[$0].expiresDate }
        chains[chain].entries.append(
            Renewal(
                productId: chains[chain].product.id, originalTransactionId: chains[chain].originalId, willRenew: willRenew,
                isInBillingRetry: billingRetry || grace != nil ? true : nil,
                gracePeriodExpiresDate: grace.flatMap { grace in last.map(grace.added(to:)) }, signedDate: event.at))
    }

    /// The chain of `group` in a receipt whose latest period has not ended at `at`, unrefunded.
    private func activeChain(group: String, receipt: Int, at: Instant) -> Int? {
        chains.indices.first { index in
            let chain = chains[index]
            guard chain.receipt == receipt, chain.group == group, let position = running(chain, at: at) else { return false }
            let transaction = current(receipt: receipt, position: position, at: at)
            return (transaction.expiresDate ?? .latest) > at && (transaction.cancellationDate.map { $0 > at } ?? true) && !transaction.isUpgraded
        }
    }

    /// The chain's period started last by `at` (its transactions are in purchase order; those
    /// written ahead by `renewals` are passed from the end).
    private func running(_ chain: Chain, at: Instant) -> Int? {
        chain.transactions.last { written[chain.receipt].transactions[$0].purchaseDate <= at }
    }

    /// A transaction as its latest copy written (signed by `at`) says.
    private func current(receipt: Int, position: Int, at: Instant? = nil) -> Transaction {
        let original = written[receipt].transactions[position]
        var latest = original
        for copy in written[receipt].copies[original.transactionId] ?? [] {
            if let at, let signed = written[receipt].transactions[copy].signedDate, signed > at { continue }
            latest = written[receipt].transactions[copy]
        }
        return latest
    }

    /// A new signed copy of a transaction, as the App Store sends when it changes.
    private mutating func snapshot(receipt: Int, position: Int, at: Instant, _ change: (inout Transaction) -> Void) {
        var copy = current(receipt: receipt, position: position)
        copy.signedDate = at
        change(&copy)
        written[receipt].transactions.append(copy)
        written[receipt].copies[copy.transactionId, default: []].append(written[receipt].transactions.count - 1)
        count += 1
    }

    // MARK: Changes of plan

    private mutating func change(_ event: inout Event, reader: inout JSONShapeReader) {
        guard let (product, owner) = self.product(event, reader: &reader) else { return }
        guard product.type == .autoRenewableSubscription, let group = product.group, let period = product.duration else {
            reader.report(
                .badValue, "`\(product.id)` is a \(product.type.rawValue): plans change between auto-renewable subscriptions",
                at: event.action.value.offset, path: event.actionPath)
            return
        }
        guard product.store == .appStore else {
            reader.report(
                .notForStore, "a change of plan is written for App Store groups, not `\(product.store.rawValue)` ones",
                at: event.action.keyOffset, path: event.actionPath,
                help: "end the subscription (`willRenew: false`) and `subscribe` to the other plan when it ends")
            return
        }
        let index = receipt(app: owner, store: product.store)
        guard let chain = activeChain(group: group, receipt: index, at: event.at) else {
            reader.report(
                .storyEvent, "no subscription of group `\(group)` is active at \(event.at.rfc3339) to change", at: event.action.keyOffset,
                path: event.actionPath, help: "`subscribe` to `\(product.id)` instead")
            return
        }
        let from = chains[chain].product
        guard from.id != product.id else {
            reader.report(.storyEvent, "`\(product.id)` is the plan already subscribed", at: event.action.value.offset, path: event.actionPath)
            return
        }
        let (fromLevel, toLevel) = (from.level ?? 1, product.level ?? 1)
        let kind = toLevel < fromLevel ? "upgrade" : toLevel > fromLevel ? "downgrade" : "crossgrade"
        guard kind == event.action.key else {
            reader.report(
                .storyEvent, "`\(from.id)` (level \(fromLevel)) to `\(product.id)` (level \(toLevel)) is a \(kind)", at: event.action.keyOffset,
                path: event.actionPath, help: "write `\"\(kind)\": \"\(product.id)\"` (level 1 is the group's highest)")
            return
        }
        let errors = reader.diagnostics.count
        let renewals = integer(event, "renewals", in: 0...Int64(Story.maximumRenewals), reader: &reader) ?? 0
        guard reader.diagnostics.count == errors, room(for: renewals + 2, event, reader: &reader) else { return }
        // The period running at the instant.
        guard let running = running(chains[chain], at: event.at) else { return }
        let runningEnd = current(receipt: index, position: running).expiresDate ?? event.at
        let immediately = kind == "upgrade" || (kind == "crossgrade" && from.duration == product.duration)
        let start = immediately ? event.at : runningEnd
        // What the chain would have renewed to from then on did not happen.
        let dropped = Set(chains[chain].transactions.filter { written[index].transactions[$0].purchaseDate >= start && $0 != running })
        if !dropped.isEmpty {
            let ids = Set(dropped.map { written[index].transactions[$0].transactionId })
            var kept: [Transaction] = []
            var moved: [Int: Int] = [:]
            for (position, transaction) in written[index].transactions.enumerated() where !ids.contains(transaction.transactionId) {
                moved[position] = kept.count
                kept.append(transaction)
            }
            written[index].transactions = kept
            written[index].copies = written[index].copies.filter { !ids.contains($0.key) }.mapValues { $0.compactMap { moved[$0] } }
            for other in chains.indices where chains[other].receipt == index {
                chains[other].transactions = chains[other].transactions.compactMap { moved[$0] }
            }
        }
        if immediately {
            let position = chains[chain].transactions.last { written[index].transactions[$0].purchaseDate < start }
            if let position { snapshot(receipt: index, position: position, at: event.at) { $0.isUpgraded = true } }
        }
        chains[chain].product = product
        let shared = written[index].transactions[chains[chain].transactions[0]].ownership == .familyShared
        writePeriods(product, period: period, from: start, count: renewals + 1, chain: chain, shared: shared)
        renewalWords(&event, chain: chain, reader: &reader)
    }

    // MARK: Refunds and extensions

    /// The transaction a refund, reversal or extension names: `last` (the latest bought by then
    /// that `accepts`), a product id (its latest) or a transaction id written before.
    private func target(_ event: Event, what: String, accepts: (Transaction) -> Bool, reader: inout JSONShapeReader) -> (
        receipt: Int, position: Int
    )? {
        guard let name = reader.nonEmptyString(event.action.value, path: event.actionPath) else { return nil }
        var found: (receipt: Int, position: Int, purchase: Instant)?
        var productIds: [String] = []
        var transactionIds: [String] = []
        for (receipt, written) in written.enumerated() {
            for (position, original) in written.transactions.enumerated() where original.signedDate == nil {
                productIds.append(original.productId)
                transactionIds.append(original.transactionId)
                guard name == "last" || name == original.productId || name == original.transactionId else { continue }
                let transaction = current(receipt: receipt, position: position, at: event.at)
                guard transaction.purchaseDate <= event.at, accepts(transaction) else { continue }
                if found.map({ transaction.purchaseDate >= $0.purchase }) ?? true { found = (receipt, position, transaction.purchaseDate) }
            }
        }
        if let found { return (found.receipt, found.position) }
        let known = name == "last" || productIds.contains(name) || transactionIds.contains(name)
        reader.report(
            known ? .storyEvent : .unknownProduct,
            known
                ? "nothing to \(what)" + (name == "last" ? ": " : " of `\(name)`: ")
                    + (what == "extend"
                        ? "no subscription period runs at \(event.at.rfc3339)"
                        : what == "refund"
                            ? "every purchase by \(event.at.rfc3339) is refunded already, or none was made"
                            : "no purchase by \(event.at.rfc3339) was refunded")
                : "`\(name)` names no purchase of this story",
            at: event.action.value.offset, path: event.actionPath,
            help: known
                ? nil : Suggestion.help(for: name, in: ["last"] + productIds + transactionIds) ?? "write `last`, a product id or a transaction id")
        return nil
    }

    private mutating func refund(_ event: inout Event, reader: inout JSONShapeReader) {
        guard room(for: 1, event, reader: &reader) else { return }
        if event.action.key == "reverseRefund" {
            guard let (receipt, position) = target(event, what: "reverse", accepts: { $0.cancellationDate != nil }, reader: &reader) else {
                return
            }
            snapshot(receipt: receipt, position: position, at: event.at) {
                $0.cancellationDate = nil
                ($0.revocationType, $0.revocationPercentage, $0.revocationReason) = (nil, nil, nil)
            }
            return
        }
        var percentage: Double?
        if let node = event.fields["percentage"]?.value {
            guard case .number(let number) = node.value, let value = Double(number.text), value > 0, value <= 100 else {
                reader.report(
                    .badValue, "`percentage` is more than 0 and at most 100", at: node.offset, path: event.path("percentage"),
                    help: "the share of the price refunded, e.g. `50`")
                return
            }
            percentage = value
        }
        if event.fields["items"] != nil {
            // SKUs refunded in full, the rest of the purchase kept.
            guard let skus = skuList(event, reader: &reader) else { return }
            if percentage != nil {
                reader.report(
                    .badValue, "a SKU's refund is whole: `percentage` goes with a refund of the purchase", at: event.fields["percentage"]!.keyOffset,
                    path: event.path("percentage"))
                return
            }
            let at = event.at
            guard
                let (receipt, position) = target(
                    event, what: "refund",
                    accepts: { transaction in
                        transaction.cancellationDate == nil
                            && skus.allSatisfy { sku in transaction.items.contains { $0.sku == sku && $0.endsAt.map { $0 > at } ?? true } }
                    }, reader: &reader)
            else { return }
            snapshot(receipt: receipt, position: position, at: at) { copy in
                for index in copy.items.indices where skus.contains(copy.items[index].sku) {
                    copy.items[index].refunds.append(Transaction.Item.Refund(amount: copy.items[index].price, date: at, type: .full))
                }
            }
            return
        }
        guard let (receipt, position) = target(event, what: "refund", accepts: { $0.cancellationDate == nil }, reader: &reader) else { return }
        snapshot(receipt: receipt, position: position, at: event.at) {
            $0.cancellationDate = event.at
            $0.revocationReason = .other
            if let percentage, percentage < 100 {
                ($0.revocationType, $0.revocationPercentage) = (.refundProrated, percentage)
            } else {
                $0.revocationType = .refundFull
            }
        }
    }

    private mutating func extend(_ event: inout Event, reader: inout JSONShapeReader) {
        guard let days = integer(event, "days", in: 1...90, reader: &reader) else {
            if event.fields["days"] == nil {
                reader.report(.missingKey, "an extension says how many `days` (1 to 90)", at: event.action.keyOffset, path: event.path)
            }
            return
        }
        let at = event.at
        guard room(for: 1, event, reader: &reader),
            let (receipt, position) = target(
                event, what: "extend", accepts: { ($0.expiresDate ?? .earliest) > at && $0.cancellationDate == nil }, reader: &reader)
        else { return }
        let shift = ISODuration(days: Int(days))
        snapshot(receipt: receipt, position: position, at: at) { $0.expiresDate = $0.expiresDate.map(shift.added(to:)) }
        // Later periods of the chain move by as much.
        let original = written[receipt].transactions[position]
        guard let chain = chains.firstIndex(where: { $0.receipt == receipt && $0.transactions.contains(position) }) else { return }
        for later in chains[chain].transactions where written[receipt].transactions[later].purchaseDate > original.purchaseDate {
            written[receipt].transactions[later].purchaseDate = shift.added(to: written[receipt].transactions[later].purchaseDate)
            written[receipt].transactions[later].expiresDate = written[receipt].transactions[later].expiresDate.map(shift.added(to:))
        }
    }

    // MARK: Advanced Commerce items and the app transaction

    /// The SKUs an event's `items` names: distinct, non-empty strings.
    private func skuList(_ event: Event, reader: inout JSONShapeReader) -> [String]? {
        guard let node = event.fields["items"]?.value else { return nil }
        guard let elements = reader.array(node, path: event.path("items"), expected: "an array of SKUs") else { return nil }
        guard !elements.isEmpty else {
            reader.report(.badValue, "name at least one SKU", at: node.offset, path: event.path("items"))
            return nil
        }
        var skus: [String] = []
        for (index, element) in elements.enumerated() {
            guard let sku = reader.nonEmptyString(element, path: event.path("items") + "[\(index)]") else { return nil }
            guard !skus.contains(sku) else {
                reader.report(
                    .badValue, "SKU `\(Diagnostic.excerpt(sku))` is listed twice", at: element.offset, path: event.path("items") + "[\(index)]")
                return nil
            }
            skus.append(sku)
        }
        return skus
    }

    /// The items a purchase of `product` lists (`items`: SKUs it declares), priced 0: a story
    /// tells what was bought, not for how much.
    private func items(_ event: Event, of product: CatalogProduct, reader: inout JSONShapeReader) -> [Transaction.Item] {
        guard event.fields["items"] != nil, let skus = skuList(event, reader: &reader) else { return [] }
        guard let declared = product.items?.map(\.sku) else {
            reader.report(
                .badValue, "`\(product.id)` is not an Advanced Commerce product: it declares no `items`", at: event.fields["items"]!.keyOffset,
                path: event.path("items"))
            return []
        }
        var items: [Transaction.Item] = []
        for (index, sku) in skus.enumerated() {
            guard declared.contains(sku) else {
                let element = reader.array(event.fields["items"]!.value, path: event.path("items"), expected: "an array of SKUs")?[index]
                reader.report(
                    .unknownProduct, "`\(Diagnostic.excerpt(sku))` is not a SKU of `\(product.id)`",
                    at: element?.offset ?? event.fields["items"]!.value.offset,
                    path: event.path("items") + "[\(index)]", help: Suggestion.help(for: sku, in: declared))
                continue
            }
            items.append(Transaction.Item(sku: sku, price: "0"))
        }
        return items.canonical
    }

    /// `download`: the app first got on a platform (with `version`), once per story.
    private mutating func downloaded(_ event: inout Event, reader: inout JSONShapeReader) {
        let names = AppPlatform.allCases.map(\.rawValue)
        guard let text = reader.enumValue(event.action.value, path: event.actionPath, names: names, what: "platform"),
            let platform = AppPlatform(rawValue: text)
        else { return }
        var version: String?
        if let node = event.fields["version"]?.value {
            guard let text = reader.nonEmptyString(node, path: event.path("version")) else { return }
            guard CatalogChecker.versionComponents(text) != nil else {
                reader.report(
                    .badValue, "`\(Diagnostic.excerpt(text))` is not a version", at: node.offset, path: event.path("version"),
                    help: "dot-separated whole numbers, such as `1.9` or `2024.3.1`")
                return
            }
            version = text
        }
        guard download == nil else {
            reader.report(
                .storyEvent, "the app is downloaded once: its first download is the app transaction's", at: event.action.keyOffset,
                path: event.actionPath)
            return
        }
        download = (event.at, platform, version)
    }

    /// `rescindConsent: true`: the customer rescinds consent for the app, once per story.
    private mutating func rescind(_ event: inout Event, reader: inout JSONShapeReader) {
        guard case .bool(true) = event.action.value.value else {
            reader.wrongType(event.action.value, expected: "`true`", path: event.actionPath)
            return
        }
        if consentRescinded == nil { consentRescinded = event.at }
    }

    // MARK: Ledger

    private mutating func consume(_ event: inout Event, reader: inout JSONShapeReader) {
        guard let members = reader.members(event.action.value, path: event.actionPath, expected: "an object of amounts by currency")
        else { return }
        if members.isEmpty {
            reader.report(.badValue, "name at least one currency and its amount", at: event.action.value.offset, path: event.actionPath)
        }
        for member in members {
            let path = CatalogChecker.path(event.actionPath, key: member.key)
            guard catalog.currencyIds.contains(member.key) else {
                reader.report(
                    .undeclaredCurrency, "`\(member.key)` is not a currency of \(app)", at: member.keyOffset, path: path,
                    help: Suggestion.help(for: member.key, in: catalog.currencyIds))
                continue
            }
            guard case .number(let number) = member.value.value, let amount = number.integer, amount > 0, amount <= 1_000_000_000 else {
                reader.report(.badValue, "an amount is a whole number from 1 to 1,000,000,000", at: member.value.offset, path: path)
                continue
            }
            written[0].consumptions.append(Consumption(id: id("consumption-"), currency: member.key, amount: amount, date: event.at))
        }
    }

    private mutating func grant(_ event: inout Event, reader: inout JSONShapeReader) {
        var features: [String] = []
        switch event.action.value.value {
        case .string: features = reader.nonEmptyString(event.action.value, path: event.actionPath).map { [$0] } ?? []
        default: features = reader.strings(event.action.value, path: event.actionPath) ?? []
        }
        var known: [String] = []
        for feature in features {
            if catalog.featureIds.contains(feature) {
                known.append(feature)
            } else {
                reader.report(
                    .undeclaredFeature, "`\(feature)` is not a feature of \(app)", at: event.action.value.offset, path: event.actionPath,
                    help: Suggestion.help(for: feature, in: catalog.featureIds))
            }
        }
        guard !known.isEmpty, known.count == features.count else { return }
        var end: Instant?
        if let node = event.fields["until"]?.value {
            end = reader.instant(node, path: event.path("until"), dateAlone: true)
            if let value = end, value <= event.at {
                reader.report(.badValue, "a grant ends after it starts", at: node.offset, path: event.path("until"))
                return
            }
        }
        if let node = event.fields["for"]?.value {
            guard end == nil else {
                reader.report(.badValue, "a grant lasts `for` a duration or `until` an instant, not both", at: node.offset, path: event.path("for"))
                return
            }
            guard let text = reader.nonEmptyString(node, path: event.path("for")), let duration = ISODuration(text), duration.isPositive,
                duration.isWithinLimit
            else {
                reader.report(.badDuration, "`for` is an ISO 8601 duration such as `P7D`", at: node.offset, path: event.path("for"))
                return
            }
            end = duration.added(to: event.at)
        }
        written[0].grants.append(Grant(id: id("grant-"), features: known, start: event.at, end: end))
    }
}
