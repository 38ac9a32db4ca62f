import Entitle
import Foundation

/// What a catalog change does to a corpus of customers at one instant: each distinct change
/// (`pro: on -> off`) with how many customers it touches and who, in corpus order.
struct ImpactReport {
    /// One distinct change and the customers it touches. Moved `until`s and changed balances
    /// differ per customer: they are grouped by direction (`earlier`, `later`, `lower`,
    /// `higher`), with `from` and `to` left out.
    struct Group {
        var app: String
        var change: EntitlementChange
        var direction: String?
        /// Whether the change takes something away (read from the exact change, before a balance's
        /// numbers are left out).
        var loss: Bool
        /// For an offer now sold to customers who pay for what it grants in another store: those
        /// stores (``BatchImpact/AppChange/subscribedIn``).
        var subscribedIn: [Store] = []
        var count = 0
        /// The first customers touched, in corpus order.
        var customers: [String] = []
    }

    /// How many customer ids a group keeps.
    static let keptIds = 100

    var at: Instant
    /// Customers evaluated (readable ones).
    var customers = 0
    /// Customers whose receipts could not be read, with the first errors.
    var unreadable = 0
    var errors: [ReceiptError] = []
    /// Customers who lose a feature or a balance.
    var losing = 0
    var losingCustomers: [String] = []
    private(set) var groups: [Group] = []
    private var index: [GroupKey: Int] = [:]

    /// What tells groups apart: the app, the change (with `from` and `to` left out when grouped
    /// by direction) and the direction.
    private struct GroupKey: Hashable {
        var app: String
        var change: EntitlementChange
        var direction: String?
        var subscribedIn: [Store]
    }

    init(at: Instant) { self.at = at }

    /// Records one customer's changes (for every app evaluated).
    mutating func add(customer: String, changes: [BatchImpact.AppChange]) {
        customers += 1
        if changes.contains(where: \.change.isLoss) {
            losing += 1
            if losingCustomers.count < Self.keptIds { losingCustomers.append(customer) }
        }
        for item in changes {
            let exact = item.change
            var change = exact
            let direction = Self.direction(of: exact)
            if direction != nil { (change.from, change.to) = (nil, nil) }
            let key = GroupKey(app: item.app, change: change, direction: direction, subscribedIn: item.subscribedIn)
            let position: Int
            if let known = index[key] {
                position = known
            } else {
                position = groups.count
                index[key] = position
                groups.append(Group(app: item.app, change: change, direction: direction, loss: exact.isLoss, subscribedIn: item.subscribedIn))
            }
            groups[position].count += 1
            if groups[position].customers.count < Self.keptIds { groups[position].customers.append(customer) }
        }
    }

    /// For changes that differ per customer (an `until` moved, a balance changed), which way.
    static func direction(of change: EntitlementChange) -> String? {
        switch change.kind {
        case .featureUntil, .productUntil:
            // No end is the latest.
            func end(_ value: EntitlementChange.Value?) -> Int64 {
                guard case .until(let instant)? = value else { return Int64.min }
                return instant?.millisecondsSince1970 ?? Int64.max
            }
            return end(change.to) < end(change.from) ? "earlier" : "later"
        case .balance, .limit:
            guard change.from != nil, change.to != nil else { return nil }
            return change.isLoss ? "lower" : "higher"
        case .featureOn, .featureOff, .productState, .offer:
            return nil
        }
    }

    mutating func addUnreadable(_ error: ReceiptError) {
        unreadable += 1
        if errors.count < 20 { errors.append(error) }
    }

    /// Groups in a stable order: by app, losses first, then by kind, id and how many customers.
    var sortedGroups: [Group] {
        let kinds = EntitlementChange.Kind.allCases
        return groups.sorted { a, b in
            if a.app != b.app { return a.app < b.app }
            if a.loss != b.loss { return a.loss }
            // Sold to those who pay elsewhere: after losses, before the rest.
            if a.subscribedIn.isEmpty != b.subscribedIn.isEmpty { return !a.subscribedIn.isEmpty }
            if a.subscribedIn != b.subscribedIn { return a.subscribedIn.map(\.rawValue).lexicographicallyPrecedes(b.subscribedIn.map(\.rawValue)) }
            let ka = kinds.firstIndex(of: a.change.kind)!
            let kb = kinds.firstIndex(of: b.change.kind)!
            if ka != kb { return ka < kb }
            if a.change.id != b.change.id { return a.change.id < b.change.id }
            if a.direction != b.direction { return (a.direction ?? "") < (b.direction ?? "") }
            if a.count != b.count { return a.count > b.count }
            return (a.change.from?.description ?? "", a.change.to?.description ?? "") < (
                b.change.from?.description ?? "", b.change.to?.description ?? ""
            )
        }
    }

    /// For people: one line per distinct change.
    var text: String {
        var lines = ["impact on \(Self.count(customers)) customer\(customers == 1 ? "" : "s") at \(at.rfc3339)"]
        var app: String?
        for group in sortedGroups {
            if group.app != app {
                lines.append("  \(group.app)")
                app = group.app
            }
            let shown = group.customers.prefix(5).joined(separator: ", ") + (group.count > 5 ? ", ..." : "")
            var what =
                group.direction.map { group.change.description.replacingOccurrences(of: "(none) -> (none)", with: $0) }
                ?? group.change.description
            if !group.subscribedIn.isEmpty {
                what =
                    "would now be offered \(group.change.id) while subscribed on "
                    + CatalogChecker.list(group.subscribedIn.map(\.phrase), quote: false, conjunction: "and") + " (\(what))"
            }
            lines.append(
                "    \(what) for \(Self.count(group.count)) of \(Self.count(customers)): \(shown)"
                    + (group.loss ? "  LOSS" : ""))
        }
        if groups.isEmpty { lines.append("  no customer's answer changes") }
        if unreadable > 0 {
            lines.append("  \(Self.count(unreadable)) customer\(unreadable == 1 ? "" : "s") could not be read:")
            for error in errors.prefix(3) {
                lines += error.description.split(separator: "\n").map { "    " + $0 }
            }
            if unreadable > 3 { lines.append("    and \(Self.count(unreadable - 3)) more (`--format json` lists up to \(errors.count))") }
        }
        return lines.textOutput
    }

    /// `{"at", "customers", "unreadable", "losing", "losingCustomers", "changes": [{"app", "kind",
    /// "id", "from", "to", "direction", "loss", "count", "customers"}], "errors": [...]}`, with
    /// `from` and `to` the changed values as ``EntitlementChange/Value`` writes them (`null`: not
    /// in that catalog, or a change grouped by direction).
    var jsonOutput: JSONOutput {
        func optional(_ text: String?) -> JSONOutput { text.map(JSONOutput.string) ?? .null }
        func optional(_ value: EntitlementChange.Value?) -> JSONOutput { value?.jsonOutput ?? .null }
        return .object([
            ("at", .string(at.rfc3339)),
            ("customers", .integer(Int64(customers))),
            ("unreadable", .integer(Int64(unreadable))),
            ("losing", .integer(Int64(losing))),
            ("losingCustomers", .array(losingCustomers.map(JSONOutput.string))),
            (
                "changes",
                .array(
                    sortedGroups.map { group in
                        .object([
                            ("app", .string(group.app)), ("kind", .string(group.change.kind.rawValue)), ("id", .string(group.change.id)),
                            ("from", optional(group.change.from)), ("to", optional(group.change.to)), ("direction", optional(group.direction)),
                            ("loss", .bool(group.loss)),
                            ("subscribedIn", .array(group.subscribedIn.map { JSONOutput.string($0.rawValue) })),
                            ("count", .integer(Int64(group.count))),
                            ("customers", .array(group.customers.map(JSONOutput.string))),
                        ])
                    })
            ),
            ("errors", .array(errors.map(\.diagnostic.jsonOutput))),
        ])
    }

    /// A count with thousands separators: `1,200`.
    static func count(_ value: Int) -> String { CountText.grouped(value) }
}
