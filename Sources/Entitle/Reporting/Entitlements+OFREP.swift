/// A result as an OpenFeature Remote Evaluation Protocol (OFREP) bulk response: what any OpenFeature
/// SDK's OFREP provider reads, so a service answers every client with one call.
///
/// `{"flags": [...]}`, one flag per declared feature (boolean), currency (integer: the balance)
/// and number limit (integer; an unlimited one 9007199254740991, the largest integer every JSON
/// reader holds exactly), sorted by key bytes. A flag is keyed by the catalog's id as written; a
/// currency with the id of a feature is keyed `balance:<id>`. Each flag has a `reason`:
/// `TARGETING_MATCH` when a source gives the value (a product, a grandfather rule or a grant for a
/// feature that is on, a covering product for a limit, purchases, deposits or consumptions for a
/// balance that is not 0 or a product that makes it unlimited; a free allowance alone is none),
/// `STATIC` when none does. An unlimited balance is 9007199254740991 too. Features and limits name the source that decides in
/// `variant` (the one whose coverage lasts longest, as `explain` names it, or `default`), and in
/// `metadata` carry `until` (when the value ends, if it does) and the deciding product's `store`
/// and `productId`; an unlimited limit's metadata says `"unlimited": true`.
extension Entitlements {
    /// The result as an OFREP bulk evaluation response, one line of JSON.
    public var ofrep: String {
        var writer = JSONLineWriter()
        writer.beginObject()
        writeOFREPFlags(to: &writer)
        writer.endObject()
        writer.newline()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// One flag as an OFREP single evaluation response (one line of JSON), or `nil` when no flag
    /// has that key (OFREP's `FLAG_NOT_FOUND`).
    public func ofrep(flag key: String) -> String? {
        guard let flag = ofrepFlags.first(where: { $0.key == key }) else { return nil }
        var writer = JSONLineWriter()
        flag.write(to: &writer)
        writer.newline()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Writes the `flags` member into an object already open (a batch line puts `customer` first).
    package func writeOFREPFlags<Writer: JSONWriter>(to writer: inout Writer) {
        writer.key("flags")
        writer.beginArray()
        for flag in ofrepFlags { flag.write(to: &writer) }
        writer.endArray()
    }

    /// One flag of the response.
    struct OFREPFlag {
        enum Value {
            case bool(Bool)
            case integer(Int64)
        }
        var key: String
        var value: Value
        /// `TARGETING_MATCH` or `STATIC`.
        var matched: Bool
        var variant: String?
        var until: Instant?
        var product: (store: Store, id: String)?
        var unlimited = false

        func write<Writer: JSONWriter>(to writer: inout Writer) {
            writer.beginObject()
            writer.member("key", key)
            writer.key("value")
            switch value {
            case .bool(let value): writer.bool(value)
            case .integer(let value): writer.integer(value)
            }
            writer.member("reason", matched ? "TARGETING_MATCH" : "STATIC")
            if let variant { writer.member("variant", variant) }
            if until != nil || product != nil || unlimited {
                writer.key("metadata")
                writer.beginObject()
                if let until { writer.member("until", until.rfc3339) }
                if let product {
                    writer.member("store", product.store.rawValue)
                    writer.member("productId", product.id)
                }
                if unlimited { writer.member("unlimited", true) }
                writer.endObject()
            }
            writer.endObject()
        }
    }

    /// Every flag, sorted by key bytes.
    var ofrepFlags: [OFREPFlag] {
        var flags: [OFREPFlag] = []
        let featureIds = Set(compiled.featureIds)
        for (index, status) in features.enumerated() {
            var flag = OFREPFlag(key: status.id, value: .bool(status.enabled), matched: status.enabled, variant: "default")
            if status.enabled, let source = decidingSource(ofFeature: index) {
                flag.variant = source.name
                flag.product = source.product
                flag.until = status.until
            }
            flags.append(flag)
        }
        for balance in balances {
            // A free allowance alone is no source; an unlimited currency is its covering product's.
            let freeOnly = balance.deposits.map { !$0.isEmpty && $0.allSatisfy { $0.source == AllowanceRules.freeSource } } ?? false
            var flag = OFREPFlag(
                key: featureIds.contains(balance.currency) ? "balance:" + balance.currency : balance.currency,
                value: .integer(balance.unlimited ? LimitValue.unlimitedNumber : balance.balance),
                matched: balance.unlimited || (balance.balance != 0 && !freeOnly))
            flag.unlimited = balance.unlimited
            flags.append(flag)
        }
        for limit in limits {
            var flag = OFREPFlag(key: limit.id, value: .integer(min(limit.value.number, LimitValue.unlimitedNumber)), matched: !limit.sources.isEmpty)
            flag.variant = limit.sources.first ?? "default"
            flag.until = limit.until
            flag.unlimited = limit.value == .unlimited
            if let key = limit.sources.first, let product = compiled.productIndex[key] {
                flag.product = (compiled.compiledProducts[product].store, compiled.compiledProducts[product].storeId)
            }
            flags.append(flag)
        }
        return flags.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// The covering source of a feature that is on whose coverage lasts longest (no end is the
    /// longest), the first on a tie in the order the explanation lists sources (`decidedBy`):
    /// products in catalog order, grandfather rules (no end), the receipts' grants, then Advanced
    /// Commerce SKUs in catalog order, each to the end of its unbroken coverage.
    private func decidingSource(ofFeature index: Int) -> (name: String, product: (store: Store, id: String)?)? {
        var best: (name: String, product: (store: Store, id: String)?, end: Int64)?
        func consider(_ name: String, _ product: (store: Store, id: String)?, _ end: Int64) {
            if best == nil || end > best!.end { best = (name, product, end) }
        }
        for granter in compiled.granters[index] {
            guard let outcome = outcome(of: granter), outcome.state.covers else { continue }
            let product = compiled.compiledProducts[granter]
            consider(product.id, (product.store, product.storeId), outcome.until)
        }
        let at = at.millisecondsSince1970
        let feature = Int32(index)
        let covering = access.filter { $0.feature == feature && $0.span.start <= at && at < $0.span.end }
        guard !covering.isEmpty else { return best.map { ($0.name, $0.product) } }
        for item in covering where item.isGrandfathered { consider(item.source, nil, CoverageSpan.never) }
        for item in covering where !item.isGrandfathered && item.source.hasPrefix("grant:") { consider(item.source, nil, item.span.end) }
        for entry in compiled.itemList where entry.item.grants.contains(index) && covering.contains(where: { $0.source == entry.source }) {
            var runs = access.filter { $0.feature == feature && $0.source == entry.source }.map(\.span)
            if let end = CoverageSpan.locate(&runs, at: at).coveringEnd { consider(entry.source, nil, end) }
        }
        return best.map { ($0.name, $0.product) }
    }
}
