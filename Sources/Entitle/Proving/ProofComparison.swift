/// The observer of a comparison: each evaluated customer's answers under the old and the new
/// catalog, compared at every instant where either changes, on the parts of the answer the
/// customer can change; the smallest witness of each way each part moved.
struct ProofComparison: ProofObserver {
    /// Per part of the answer (index in the space's items), the best witness of each direction.
    private(set) var found: [Int: [ProofVerdict: ProofWitness]] = [:]

    mutating func observe(_ searched: SearchCase, in space: ReceiptSpace) {
        guard searched.points.count == 2 else { return }
        let items = searched.touched.map { space.items[$0].item }
        let old = Self.values(searched.points[0], items)
        let new = Self.values(searched.points[1], items)
        // Every instant at which either answer changes; each side's answer there is the one of its
        // latest evaluation at or before it.
        let instants = Array(Set(searched.points[0].map(\.at) + searched.points[1].map(\.at))).sorted()
        var i = -1
        var j = -1
        for instant in instants {
            while i + 1 < searched.points[0].count, searched.points[0][i + 1].at <= instant { i += 1 }
            while j + 1 < searched.points[1].count, searched.points[1][j + 1].at <= instant { j += 1 }
            for (position, index) in searched.touched.enumerated() {
                let before = i >= 0 ? old[i][position] : nil
                let after = j >= 0 ? new[j][position] : nil
                guard let direction = ItemValue.direction(items[position].kind, old: before, new: after) else { continue }
                if let known = found[index]?[direction], known.order <= searched.order { continue }
                found[index, default: [:]][direction] = ProofWitness(
                    direction: direction, receipts: searched.receipts, at: Instant(millisecondsSince1970: instant),
                    old: ItemValue.text(before), new: ItemValue.text(after), transactions: searched.customer.placed.count,
                    customer: space.describe(searched.customer, receipts: searched.receipts),
                    expectation: j >= 0 ? Self.expectation(items[position], in: searched.points[1][j].result) : nil,
                    order: searched.order)
            }
        }
    }

    mutating func merge(_ other: ProofComparison) {
        for (index, witnesses) in other.found {
            for (direction, witness) in witnesses {
                if let known = found[index]?[direction], known.order <= witness.order { continue }
                found[index, default: [:]][direction] = witness
            }
        }
    }

    /// Each item's value at each evaluation.
    private static func values(_ points: [SearchPoint], _ items: [ProofItem]) -> [[ItemValue?]] {
        points.indices.map { index in
            var reader = ResultReader(points[index].result)
            return items.map { ItemValue.read($0, in: &reader) }
        }
    }

    /// The item's answer in `result` as part of `check --format json`'s object (a test case's
    /// `expect`); `nil` when the result's catalog does not have it.
    static func expectation(_ item: ProofItem, in result: Entitlements) -> JSONOutput? {
        switch item.kind {
        case .feature:
            guard let status = result.feature(item.id) else { return nil }
            return .object([
                (
                    "features",
                    .object([
                        (
                            item.id,
                            .object([
                                ("enabled", .bool(status.enabled)), ("until", status.until.map { .string($0.rfc3339) } ?? .null),
                            ])
                        )
                    ])
                )
            ])
        case .balance:
            guard let balance = result.balance(of: item.id) else { return nil }
            return .object([("balances", .object([(item.id, .integer(balance))]))])
        case .limit:
            guard let limit = result.limit(item.id) else { return nil }
            var value = JSONOutput.Builder()
            limit.write(to: &value)
            return .object([("limits", .object([(item.id, value.value)]))])
        case .product:
            guard let status = result.product(item.id) else { return nil }
            var product = JSONOutput.Builder()
            status.write(to: &product)
            return .object([("products", .object([(item.id, product.value)]))])
        case .offer:
            guard let offer = result.offer(for: item.id) else { return nil }
            var members: [(String, JSONOutput)] = [
                ("eligible", .bool(offer.eligible)), ("reason", offer.reason.map { .string($0.rawValue) } ?? .null),
            ]
            if let intro = offer.introOfferEligible { members.append(("introOfferEligible", .bool(intro))) }
            members.append(("change", offer.change.map { .string($0.rawValue) } ?? .null))
            members.append(("effective", offer.effective.map { .string($0.rawValue) } ?? .null))
            return .object([("offers", .object([(item.id, .object(members))]))])
        case .promotion:
            guard let product = item.product, let offer = result.offer(for: product), let promotions = offer.promotions else { return nil }
            return .object([
                (
                    "offers",
                    .object([
                        (
                            product,
                            .object([
                                (
                                    "promotions",
                                    .array(
                                        promotions.map { promotion in
                                            .object([
                                                ("id", .string(promotion.id)), ("type", .string(promotion.type.rawValue)),
                                                ("eligible", .bool(promotion.eligible)), ("reason", .string(promotion.reason.rawValue)),
                                            ])
                                        })
                                )
                            ])
                        )
                    ])
                )
            ])
        }
    }

    /// The report's items for one space: every part of the answer with its verdict and witnesses.
    func items(of space: ReceiptSpace) -> [ProofReport.Item] {
        space.items.indices.map { index in
            let witnesses = found[index] ?? [:]
            let verdict: ProofVerdict
            if witnesses[.more] != nil && witnesses[.less] != nil {
                verdict = .changed
            } else if witnesses[.less] != nil {
                verdict = .less
            } else if witnesses[.more] != nil {
                verdict = .more
            } else if witnesses[.changed] != nil {
                verdict = .changed
            } else {
                verdict = .same
            }
            return ProofReport.Item(
                item: space.items[index].item, verdict: verdict,
                witnesses: [ProofVerdict.less, .more, .changed].compactMap { witnesses[$0] },
                unchanged: space.items[index].unchanged)
        }
    }
}
