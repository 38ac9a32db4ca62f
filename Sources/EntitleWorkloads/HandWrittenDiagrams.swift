import Entitle

/// What a developer would write by hand for the Diagrams example catalog (products/diagrams.json),
/// with no engine: the floor a compiled evaluator can hope for.
///
/// It computes the same features (on, and until when) and balances as the evaluator, following the
/// same rules, for this one catalog only.
public enum HandWrittenDiagrams {
    /// Features in catalog order: pro, export.pdf, cloud.sync; `until` is `Int64.max` for never.
    public struct Result: Equatable, Sendable {
        public var enabled: (pro: Bool, exportPDF: Bool, cloudSync: Bool)
        public var until: (pro: Int64, exportPDF: Int64, cloudSync: Int64)
        public var stencils: Int64

        public static func == (a: Result, b: Result) -> Bool {
            a.enabled == b.enabled && a.until == b.until && a.stencils == b.stencils
        }

        public init(enabled: (Bool, Bool, Bool), until: (Int64, Int64, Int64), stencils: Int64) {
            self.enabled = enabled
            self.until = until
            self.stencils = stencils
        }
    }

    public static func evaluate(_ receipt: Receipt, at: Instant) -> Result {
        let now = at.millisecondsSince1970
        let day: Int64 = 86_400_000
        // Deduplicate by transaction id; the earliest cancellation holds.
        var seen: [String: Int] = [:]
        seen.reserveCapacity(receipt.transactions.count)
        var unique: [(transaction: Transaction, cancellation: Int64)] = []
        unique.reserveCapacity(receipt.transactions.count)
        for transaction in receipt.transactions {
            let cancellation = transaction.cancellationDate?.millisecondsSince1970 ?? .max
            if let index = seen[transaction.transactionId] {
                unique[index].cancellation = min(unique[index].cancellation, cancellation)
            } else {
                seen[transaction.transactionId] = unique.count
                unique.append((transaction, cancellation))
            }
        }
        var proForever = Int64.max  // first counted purchase of pro or its upgrade
        var trialStart = Int64.max
        var trialCounted = false
        var passes: [Int64] = []
        var passQuantities: [Int] = []
        var sync: [(Int64, Int64)] = []
        var syncChains: [(chain: String, expires: Int64)] = []
        var stencils: Int64 = 0
        for (transaction, cancellation) in unique {
            let purchase = transaction.purchaseDate.millisecondsSince1970
            // No Diagrams product is family-shareable.
            guard purchase <= now, transaction.ownership == .purchased else { continue }
            let counted = cancellation > now && !transaction.isUpgraded
            switch transaction.productId {
            case "com.example.diagrams.pro", "com.example.diagrams.pro.upgrade":
                if counted { proForever = min(proForever, purchase) }
            case "com.example.diagrams.trial":
                trialStart = min(trialStart, transaction.originalPurchaseDate?.millisecondsSince1970 ?? purchase, purchase)
                trialCounted = trialCounted || counted
            case "com.example.diagrams.daypass":
                if counted {
                    passes.append(purchase)
                    passQuantities.append(transaction.quantity)
                }
            case "com.example.diagrams.sync.monthly":
                if counted, let expires = transaction.expiresDate?.millisecondsSince1970 {
                    if expires > purchase { sync.append((purchase, expires)) }
                    syncChains.append((transaction.originalTransactionId ?? transaction.transactionId, expires))
                }
            case "com.example.diagrams.stencils.10":
                if cancellation > now { stencils += 10 * Int64(transaction.quantity) }
            default:
                break
            }
        }
        for renewal in receipt.renewals {
            guard let grace = renewal.gracePeriodExpiresDate?.millisecondsSince1970 else { continue }
            var latest = Int64.min
            for chain in syncChains where chain.chain == renewal.originalTransactionId { latest = max(latest, chain.expires) }
            if latest != .min, grace > latest { sync.append((latest, grace)) }
        }
        var consumed: Set<String> = []
        for consumption in receipt.consumptions where consumed.insert(consumption.id).inserted {
            if consumption.date.millisecondsSince1970 <= now, consumption.currency == "stencils" { stencils -= consumption.amount }
        }
        // Spans of each source.
        var proSpans: [(Int64, Int64)] = []
        var pdfSpans: [(Int64, Int64)] = []
        if proForever != .max {
            proSpans.append((proForever, .max))
            pdfSpans.append((proForever, .max))
        }
        if trialCounted {
            proSpans.append((trialStart, trialStart + 14 * day))
            pdfSpans.append((trialStart, trialStart + 14 * day))
        }
        if !passes.isEmpty {
            let order = passes.indices.sorted { passes[$0] < passes[$1] }
            var end = Int64.min
            for index in order {
                let start = max(passes[index], end)
                end = start + Int64(passQuantities[index]) * day
                proSpans.append((start, end))
            }
        }
        let pro = cover(&proSpans, now)
        let pdf = cover(&pdfSpans, now)
        let cloud = cover(&sync, now)
        return Result(
            enabled: (pro != nil, pdf != nil, cloud != nil),
            until: (pro ?? .max, pdf ?? .max, cloud ?? .max), stencils: stencils)
    }

    /// The end of the unbroken span containing `now`, or `nil`.
    private static func cover(_ spans: inout [(Int64, Int64)], _ now: Int64) -> Int64? {
        guard !spans.isEmpty else { return nil }
        spans.sort { $0.0 < $1.0 }
        var index = 0
        while index < spans.count {
            let start = spans[index].0
            var end = spans[index].1
            index += 1
            while index < spans.count, spans[index].0 <= end {
                end = max(end, spans[index].1)
                index += 1
            }
            if start > now { return nil }
            if now < end { return end }
        }
        return nil
    }

    /// The same figures read from an evaluator's result, for comparison.
    public static func result(from entitlements: Entitlements) -> Result {
        let pro = entitlements.coverage(of: "pro")!
        let pdf = entitlements.coverage(of: "export.pdf")!
        let sync = entitlements.coverage(of: "cloud.sync")!
        return Result(
            enabled: (pro.enabled, pdf.enabled, sync.enabled),
            until: (
                pro.until?.millisecondsSince1970 ?? .max, pdf.until?.millisecondsSince1970 ?? .max,
                sync.until?.millisecondsSince1970 ?? .max
            ),
            stencils: entitlements.balance(of: "stencils") ?? 0)
    }
}

extension GeneratedCatalog {
    /// The shape of the Diagrams example catalog (products/diagrams.json), to generate receipts for it.
    public static let diagrams = GeneratedCatalog(
        app: "com.example.diagrams", features: ["pro", "export.pdf", "cloud.sync"], currencies: ["stencils"],
        products: [
            ProductShape(id: "com.example.diagrams.pro", kind: .nonConsumable, grants: ["pro", "export.pdf"]),
            ProductShape(id: "com.example.diagrams.trial", kind: .trial(days: 14, paid: "com.example.diagrams.pro"), grants: ["pro", "export.pdf"]),
            ProductShape(
                id: "com.example.diagrams.pro.upgrade", kind: .upgrade(replaces: "com.example.diagrams.pro"), grants: ["pro", "export.pdf"]),
            ProductShape(
                id: "com.example.diagrams.sync.monthly", kind: .autoRenewable(group: "sync", months: 1, intro: true), grants: ["cloud.sync"]),
            ProductShape(id: "com.example.diagrams.daypass", kind: .nonRenewing(days: 1), grants: ["pro"]),
            ProductShape(id: "com.example.diagrams.stencils.10", kind: .consumable(currency: "stencils", amount: 10), grants: []),
        ])
}
