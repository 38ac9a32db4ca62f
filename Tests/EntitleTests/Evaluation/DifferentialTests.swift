import Foundation
import Testing

@testable import Entitle

/// The compiled evaluator against the reference evaluator on random catalogs and receipts
/// (``RandomCase``), at every boundary instant of each; and at every fourth instant, the same
/// receipts shuffled (receipts and the entries of each) give a byte-identical answer.
///
/// `swift test` runs 1,600 cases (about 60,000 evaluations); set `ENTITLE_DIFFERENTIAL_CASES` for
/// more, e.g. `ENTITLE_DIFFERENTIAL_CASES=100000 swift test --filter Differential`, and
/// `ENTITLE_DIFFERENTIAL_SEED` to start elsewhere. A failure names the seed and the instant.
@Suite("Differential: compiled against reference")
struct DifferentialTests {
    static let environment = ProcessInfo.processInfo.environment
    static let cases = Int(environment["ENTITLE_DIFFERENTIAL_CASES"] ?? "") ?? 1_600
    static let firstSeed = UInt64(environment["ENTITLE_DIFFERENTIAL_SEED"] ?? "") ?? 1
    static let chunks = 8

    @Test("random catalogs and receipts agree at every boundary instant", arguments: 0..<chunks)
    func agree(chunk: Int) throws {
        var evaluations = 0
        var failures = 0
        // What the cases reached, so a generator that stops producing some situation fails.
        var states: Set<ProductState> = []
        var reasons: Set<OfferReason> = []
        var warnings: Set<String> = []
        var promotions: Set<PromotionReason> = []
        var enabled = 0
        var introUsed = 0
        var negative = 0
        var commitments = 0
        // Cases with a Play subscription replacing another, and those where the two are in two receipts.
        var linked = 0
        var linkedApart = 0
        // Cases with refunds or voids reported apart, and those where they are in a receipt of their own.
        var revoked = 0
        var revokedApart = 0
        var reordered = 0
        var checkedBefore = 0
        // Features on through an Advanced Commerce item; retention answers that matched a rule.
        var itemSources = 0
        var retentionMatched = 0
        // Limits some product gives, unlimited ones, and sums of several sources or quantities.
        var limited = 0
        var unlimited = 0
        var summed = 0
        for index in stride(from: chunk, to: Self.cases, by: Self.chunks) {
            let seed = Self.firstSeed + UInt64(index)
            let random = RandomCase(seed: seed, items: true, retention: true, allowances: true)
            let compilation = Portfolio.compile([
                CatalogSource(name: "random-\(seed).json", data: Data(random.catalogJSON.utf8)),
                CatalogSource(name: "old.json", data: Data(random.oldCatalogJSON.utf8)),
            ])
            guard let portfolio = compilation.portfolio, let catalog = portfolio.catalog(for: RandomCase.app),
                let old = portfolio.catalog(for: RandomCase.oldApp)
            else {
                Issue.record("seed \(seed): the generated catalog does not compile: \(compilation.errors.map(\.description))")
                return
            }
            let parsed = random.receipts.map(ParsedReceipt.init)
            let linking = random.receipts.filter { $0.transactions.contains { $0.linkedPurchaseToken != nil } }
            if !linking.isEmpty { linked += 1 }
            if linking.contains(where: { receipt in
                receipt.transactions.contains { transaction in
                    transaction.linkedPurchaseToken.map { token in !receipt.transactions.contains { $0.originalTransactionId == token } } ?? false
                }
            }) {
                linkedApart += 1
            }
            if random.receipts.contains(where: { !$0.revocations.isEmpty }) { revoked += 1 }
            if random.receipts.contains(where: { !$0.revocations.isEmpty && $0.transactions.isEmpty }) { revokedApart += 1 }
            // The same receipts in another order, each with its entries in another order.
            var shuffler = SplitMix(seed: seed ^ 0x5EED)
            let shuffled = random.receipts.shuffled(using: &shuffler).map { receipt in
                var receipt = receipt
                receipt.transactions.shuffle(using: &shuffler)
                for index in receipt.transactions.indices { receipt.transactions[index].items.shuffle(using: &shuffler) }
                receipt.renewals.shuffle(using: &shuffler)
                receipt.revocations.shuffle(using: &shuffler)
                receipt.consumptions.shuffle(using: &shuffler)
                receipt.grants.shuffle(using: &shuffler)
                return ParsedReceipt(receipt)
            }
            for (place, at) in random.boundaries(catalog).enumerated() {
                let expected = ReferenceEvaluator.evaluate(
                    catalog, receipts: random.receipts, at: at, environments: random.environments,
                    catalogs: [RandomCase.oldApp: old], accounts: random.accounts, storefront: random.storefront)
                let result = try portfolio.evaluate(
                    app: RandomCase.app, receipts: parsed, at: at,
                    options: .testing(
                        environments: random.environments,
                        accounts: random.accounts, storefront: random.storefront))
                let actual = ReferenceResult(result)
                // The order of receipts and of their entries never changes a byte of the answer.
                if place % 4 == 0 {
                    let other = try portfolio.evaluate(
                        app: RandomCase.app, receipts: shuffled, at: at,
                        options: .testing(
                            environments: random.environments,
                            accounts: random.accounts, storefront: random.storefront))
                    reordered += 1
                    // So do the replies to Apple's server: a consumption reply about each of the
                    // first transactions, a retention answer about each of the first chains.
                    for transaction in place % 16 == 0 ? random.receipts.first(where: { $0.app == RandomCase.app })?.transactions.prefix(2) ?? [] : []
                    {
                        func reply(_ receipts: [ParsedReceipt]) -> String {
                            do {
                                let reply = try portfolio.consumptionReply(
                                    app: RandomCase.app, transactionId: transaction.transactionId, receipts: receipts, at: at, consented: true,
                                    options: .testing(environments: random.environments, accounts: random.accounts))
                                return reply.json + reply.explanationText
                            } catch { return error.description }
                        }
                        func answer(_ receipts: [ParsedReceipt]) -> String {
                            let request = RetentionRequest(
                                originalTransactionId: transaction.originalTransactionId ?? transaction.transactionId,
                                productId: transaction.productId, userLocale: "de", requestIdentifier: "order")
                            do {
                                return try portfolio.retentionReply(
                                    app: RandomCase.app, request: request, receipts: receipts, at: at,
                                    options: .testing(
                                        environments: random.environments,
                                        accounts: random.accounts)
                                ).json
                            } catch { return error.description }
                        }
                        // The retention answer is the reference's.
                        let request = RetentionRequest(
                            originalTransactionId: transaction.originalTransactionId ?? transaction.transactionId,
                            productId: transaction.productId, userLocale: ["de", "de-AT", "en"][place % 3], requestIdentifier: "reference")
                        let decided = try? portfolio.retentionReply(
                            app: RandomCase.app, request: request, receipts: parsed, at: at,
                            options: .testing(
                                environments: random.environments,
                                accounts: random.accounts))
                        let reference = ReferenceEvaluator.retention(
                            catalog, receipts: random.receipts, request: request, at: at, environments: random.environments,
                            catalogs: [RandomCase.oldApp: old], accounts: random.accounts)
                        if decided.map({ "\($0.reason) \($0.rule ?? "-") \(String(describing: $0.reply))" })
                            != reference.map({ "\($0.reason) \($0.rule ?? "-") \(String(describing: $0.reply))" })
                        {
                            failures += 1
                            Issue.record(
                                """
                                seed \(seed) at \(at): retention about \(request.originalTransactionId) (\(request.productId), \(request.userLocale ?? "")): \
                                compiled \(decided.map { "\($0.reason) \($0.rule ?? "-") \(String(describing: $0.reply))" } ?? "error"), \
                                reference \(reference.map { "\($0.reason) \($0.rule ?? "-") \(String(describing: $0.reply))" } ?? "error")
                                catalog: \(random.catalogJSON)
                                """)
                        }
                        if decided?.reason == .ruleMatched { retentionMatched += 1 }
                        if reply(parsed) != reply(shuffled) || answer(parsed) != answer(shuffled) {
                            failures += 1
                            let replies = [reply(parsed), reply(shuffled), answer(parsed), answer(shuffled)].joined(separator: "\n")
                            Issue.record(
                                "seed \(seed) at \(at): reordering the receipts changes a reply about \(transaction.transactionId):\n\(replies)")
                        }
                    }
                    if other.json != result.json {
                        failures += 1
                        Issue.record("seed \(seed) at \(at): reordering the receipts changes the answer:\n\(result.json)\n\(other.json)")
                        if failures >= 3 { return }
                    }
                }
                // `reevaluateAt` is early, never late: a millisecond before it, and at every instant
                // between where the reference says something could change, the answer is the one at `at`.
                if place % 8 == 1 {
                    let next = result.reevaluateAt?.millisecondsSince1970 ?? Int64.max
                    var between = ReferenceEvaluator.candidateInstants(
                        catalog, receipts: random.receipts, at: at, environments: random.environments
                    ).filter { $0 > at.millisecondsSince1970 && $0 < next }.sorted().prefix(8).map { $0 }
                    if next != .max, next - 1 > at.millisecondsSince1970 { between.append(next - 1) }
                    for instant in between where Instant(millisecondsSince1970: instant).isInRange {
                        let earlier = try portfolio.evaluate(
                            app: RandomCase.app, receipts: parsed, at: Instant(millisecondsSince1970: instant),
                            options: .testing(environments: random.environments, accounts: random.accounts, storefront: random.storefront))
                        checkedBefore += 1
                        if !ReferenceResult(earlier, nextChange: false).sameAnswer(as: actual) {
                            failures += 1
                            Issue.record(
                                "seed \(seed) at \(at): the answer changes at \(Instant(millisecondsSince1970: instant)), before reevaluateAt \(String(describing: result.reevaluateAt)): \(ReferenceResult(earlier, nextChange: false).difference(from: actual))"
                            )
                            if failures >= 3 { return }
                            break
                        }
                    }
                }
                evaluations += 1
                states.formUnion(expected.products.values.map(\.state))
                reasons.formUnion(expected.offers.values.compactMap(\.reason))
                warnings.formUnion(expected.warnings.map { String($0.prefix { $0 != ":" }) })
                enabled += expected.features.values.filter(\.enabled).count
                introUsed += expected.offers.values.filter { $0.introOfferEligible == false }.count
                negative += expected.balances.values.filter { $0 < 0 }.count
                promotions.formUnion(expected.offers.values.flatMap { ($0.promotions ?? []).compactMap(\.reason) })
                commitments += expected.products.values.filter { $0.commitment != nil }.count
                itemSources += expected.features.values.filter { $0.sources.contains { $0.contains("/") } }.count
                limited += expected.limits.values.filter { !$0.sources.isEmpty }.count
                unlimited += expected.limits.values.filter { $0.value == .unlimited }.count
                summed +=
                    expected.limits["l1"].map { limit in
                        guard case .count(let value) = limit.value else { return 0 }
                        return limit.sources.count > 1 || value > 50 ? 1 : 0
                    } ?? 0
                if actual != expected {
                    failures += 1
                    Issue.record(
                        """
                        seed \(seed) at \(at): \(expected.difference(from: actual))
                        environments: \(String(describing: random.environments)), account: \(random.accounts.isEmpty ? "any" : random.accounts.joined(separator: ", ")), storefront: \(random.storefront ?? "none")
                        catalog: \(random.catalogJSON)
                        receipts: \(random.receipts.map(\.json).joined(separator: "\n"))
                        """)
                    if failures >= 3 { return }
                    break
                }
            }
        }
        #expect(evaluations >= Self.cases / Self.chunks * 10)
        guard Self.cases >= 800 else { return }
        #expect(states == Set(ProductState.allCases), "states reached: \(states)")
        #expect(reasons == Set(OfferReason.allCases), "offer reasons reached: \(reasons)")
        #expect(promotions == Set(PromotionReason.allCases), "promotion reasons reached: \(promotions)")
        let expectedWarnings: Set<String> = [
            "unknown-product", "missing-expiry", "not-family-shareable", "conflicting-transaction",
            "conflicting-consumption", "unknown-currency", "negative-balance", "orphan-renewal",
            "conflicting-renewal", "other-account", "win-back-criteria-disagree", "unacknowledged", "unknown-item", "unmatched-revocation",
        ]
        #expect(warnings.isSuperset(of: expectedWarnings), "warnings reached: \(warnings)")
        #expect(enabled > evaluations / 4 && introUsed > 0 && negative > 0 && commitments > 0 && itemSources > 0 && retentionMatched > 0)
        #expect(limited > evaluations / 8 && unlimited > 0 && summed > 0, "limits: \(limited) given, \(unlimited) unlimited, \(summed) summed")
        #expect(linked > 0 && linkedApart > 0, "replacements: \(linked) cases, \(linkedApart) across receipts")
        #expect(revoked > 0 && revokedApart > 0, "refunds and voids: \(revoked) cases, \(revokedApart) in receipts of their own")
        #expect(reordered >= evaluations / 5)
        #expect(checkedBefore >= evaluations / 16)
    }
}

extension ReferenceResult {
    /// The first field that differs, for a failure message.
    func difference(from actual: ReferenceResult) -> String {
        for (id, status) in features.sorted(by: { $0.key < $1.key }) where actual.features[id] != status {
            return "feature \(id): reference \(status), compiled \(String(describing: actual.features[id]))"
        }
        for (id, status) in products.sorted(by: { $0.key < $1.key }) where actual.products[id] != status {
            return "product \(id): reference \(status), compiled \(String(describing: actual.products[id]))"
        }
        for (id, offer) in offers.sorted(by: { $0.key < $1.key }) where actual.offers[id] != offer {
            return "offer \(id): reference \(offer), compiled \(String(describing: actual.offers[id]))"
        }
        if balances != actual.balances { return "balances: reference \(balances), compiled \(actual.balances)" }
        if deposits != actual.deposits { return "deposits: reference \(deposits), compiled \(actual.deposits)" }
        if unlimited != actual.unlimited { return "unlimited: reference \(unlimited.sorted()), compiled \(actual.unlimited.sorted())" }
        if nextDeposits != actual.nextDeposits { return "next deposits: reference \(nextDeposits), compiled \(actual.nextDeposits)" }
        for (id, limit) in limits.sorted(by: { $0.key < $1.key }) where actual.limits[id] != limit {
            return "limit \(id): reference \(limit), compiled \(String(describing: actual.limits[id]))"
        }
        if reevaluateAt != actual.reevaluateAt {
            return "reevaluateAt: reference \(String(describing: reevaluateAt)), compiled \(String(describing: actual.reevaluateAt))"
        }
        return "warnings: reference \(warnings), compiled \(actual.warnings)"
    }
}
