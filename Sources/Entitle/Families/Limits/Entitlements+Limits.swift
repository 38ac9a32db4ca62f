/// Number limits in a result: worked out when read from the products that cover at the instant
/// (their states, untils and covering quantities), so evaluation pays nothing for them.
///
/// With `max`, the value is the largest a covering product gives, never below the limit's
/// `default`; its sources are the covering products giving that value (none when the default
/// is larger). With `sum`, each covering product adds its value times the quantity of its covering
/// transaction; the `default` applies only when none covers. `"unlimited"` wins either way. Once the
/// customer rescinded consent for the app, every limit is its default, as every feature is off.
extension Entitlements {
    /// Every declared limit's value, in catalog order (empty for a catalog that declares none).
    public var limits: [LimitStatus] { compiled.limitRules.ids.indices.map(limitStatus) }

    /// One limit's value, or `nil` for a limit the catalog does not declare.
    public func limit(_ id: String) -> LimitStatus? { compiled.limitRules.index[id].map(limitStatus) }

    /// A product that gives a limit a value, and the span it gives it in as known now.
    private struct LimitSource {
        var product: Int
        var value: LimitValue
        var quantity: Int64
        var from: Int64
        var until: Int64
    }

    private func limitStatus(_ index: Int) -> LimitStatus {
        let rules = compiled.limitRules
        let at = at.millisecondsSince1970
        var sources: [LimitSource] = []
        if consentRescinded == nil {
            for outcome in productOutcomes {
                guard let given = rules.given(by: Int(outcome.product)).first(where: { $0.limit == Int32(index) }) else { continue }
                let product = Int(outcome.product)
                // Its coverage runs that end after the instant (the one holding it first, when it
                // covers); a paused or pre-ordered product covers from when it resumes or is released.
                for run in spans[Int(outcome.spans.lowerBound)..<Int(outcome.spans.upperBound)] {
                    let covering = run.start <= at
                    sources.append(
                        LimitSource(
                            product: product, value: given.value, quantity: covering ? outcome.quantity : 1, from: max(run.start, at),
                            until: run.end))
                }
                if outcome.state == .paused || outcome.state == .preordered, outcome.startsAt > at {
                    sources.append(LimitSource(product: product, value: given.value, quantity: 1, from: outcome.startsAt, until: .max))
                }
            }
        }
        let (value, givers) = Self.limitValue(rules, index, sources.filter { $0.from <= at && at < $0.until })
        // The next instant the value differs, among the instants a source starts or ends.
        var until: Int64?
        for instant in Set(sources.flatMap { [$0.from, $0.until] }).filter({ $0 > at && $0 != .max }).sorted() {
            if Self.limitValue(rules, index, sources.filter { $0.from <= instant && instant < $0.until }).value != value {
                until = instant
                break
            }
        }
        return LimitStatus(
            id: rules.ids[index], value: value, sources: Array(Set(givers.map { compiled.compiledProducts[$0].id })).sorted(),
            until: until.map { Instant(millisecondsSince1970: $0) })
    }

    /// The value `covering` give limit `index`, and the products that give it.
    private static func limitValue(_ rules: CompiledLimits, _ index: Int, _ covering: [LimitSource]) -> (value: LimitValue, givers: [Int]) {
        let fallback = LimitValue.count(rules.defaults[index])
        guard !covering.isEmpty else { return (fallback, []) }
        switch rules.combine[index] {
        case .max:
            let best = covering.map(\.value).max()!
            guard best >= fallback else { return (fallback, []) }
            return (best, covering.filter { $0.value == best }.map(\.product))
        case .sum:
            var total: Int64 = 0
            for source in covering {
                guard case .count(let count) = source.value else {
                    return (.unlimited, covering.filter { $0.value == .unlimited }.map(\.product))
                }
                // A value is at most 10^12 and a quantity at most 10^6; a sum past Int64 stays at its end.
                let (product, overflow) = count.multipliedReportingOverflow(by: source.quantity)
                let (sum, past) = total.addingReportingOverflow(overflow ? .max : product)
                total = past ? .max : sum
            }
            return (.count(total), covering.map(\.product))
        }
    }
}

extension Evaluation {
    /// For a limit that adds its sources' values times their quantity: the quantity of the product's
    /// transaction that covers at the instant (the largest when several do; the latest counted one
    /// when only a grace period covers). `entries` are one product's, in purchase order.
    func coveringQuantity(_ entries: ArraySlice<Entry>, type: ProductType) -> Int64 {
        var quantity: Int64 = 0
        var latest: Int64 = 1
        for entry in entries where entry.cancellation > at && !entry.isUpgraded && entry.purchase <= at {
            latest = entry.record.countedQuantity
            let covers = type != .autoRenewableSubscription || at < entry.capped(entry.expires)
            if covers { quantity = max(quantity, entry.record.countedQuantity) }
        }
        return quantity > 0 ? quantity : latest
    }
}
