import Entitle
import Foundation

/// What a test case expects, checked against the app's catalog and compared with a result.
///
/// An expectation is a part of the object `check --format json` prints: every key given must
/// match, keys left out are not checked. Objects are matched key by key; lists of objects with
/// ids (an offer's `promotions`) entry by entry, each found by its `id`, only the entries listed
/// (a case with `"exactly": true` compares the whole list); other arrays (`sources`,
/// `warnings`) and scalars must be equal; instants are compared as instants, so
/// `2026-01-15T09:00:00Z` equals `2026-01-15T09:00:00.000Z`. A key the result never has (a
/// feature the catalog does not declare, `feature` for `features`) is an error in the test file,
/// not a case that cannot pass.
struct ExpectationMatcher {
    /// What a value of the result is.
    indirect enum Shape {
        /// `true` or `false`; `null` too when the key may be absent from the result.
        case bool(nullable: Bool)
        case integer
        /// A balance: its number, or an object of `balance`, `unlimited`, `nextDepositAt` and
        /// `deposits` (compared whole) in a catalog with allowances or unlimited currencies.
        case balance
        /// A number limit's value: a whole number or `"unlimited"`.
        case limitValue
        case string(nullable: Bool)
        /// An RFC 3339 instant, compared as an instant.
        case instant(nullable: Bool)
        /// One of a list of names.
        case choice([String], what: String, nullable: Bool)
        /// An array of strings, compared whole.
        case strings
        /// The warnings: an array of `{"code", "message"}`, compared whole.
        case warnings
        /// An array of objects with known keys, each with an `id` it is matched by (an offer's
        /// `promotions`).
        case records([(key: String, shape: Shape)], what: String)
        /// An object with known keys.
        case record([(key: String, shape: Shape)], what: String)
        /// An object keyed by the catalog's ids (`known` holds them too, for lookups); `refused`
        /// says why an id of the catalog is not a key here.
        /// `aliases` are other names of ids: another store's product by its id alone
        /// (`prod_Pro` for `stripe:prod_Pro`), where that id is one product's.
        case map(ids: [String], known: Set<String>, what: String, value: Shape, refused: [String: String], aliases: [String: String] = [:])
        /// Any JSON value, compared whole (Apple's reply bodies).
        case json
        /// An object keyed by ids the catalog does not know (transaction ids), each a `value`.
        case ids(what: String, value: Shape)
    }

    /// One difference between what a case expects and the result.
    struct Mismatch {
        /// The JSON path in the result, such as `features.pro.enabled`.
        var path: String
        /// Where the expected value is in the test file.
        var offset: Int
        var expected: JSONOutput
        var actual: JSONOutput
    }

    let catalog: CompiledCatalog
    let shape: Shape

    /// A balance of a catalog with allowances or unlimited currencies, as expected.
    static var ledgerBalance: Shape {
        .record(
            [("balance", .integer), ("unlimited", .bool(nullable: true)), ("nextDepositAt", .instant(nullable: true)), ("deposits", .json)],
            what: "balance")
    }

    init(catalog: CompiledCatalog) {
        self.catalog = catalog
        let feature = Shape.record(
            [
                ("enabled", .bool(nullable: false)), ("until", .instant(nullable: true)), ("sources", .strings),
            ], what: "feature")
        let store = Shape.choice(Store.allCases.map(\.rawValue), what: "store", nullable: false)
        let product = Shape.record(
            [
                ("store", store),
                ("type", .choice(ProductType.allCases.map(\.rawValue), what: "product type", nullable: false)),
                ("state", .choice(ProductState.allCases.map(\.rawValue), what: "product state", nullable: false)),
                ("until", .instant(nullable: true)), ("startsAt", .instant(nullable: true)), ("resumesAt", .instant(nullable: true)),
                ("willRenew", .bool(nullable: true)), ("renewsTo", .string(nullable: true)),
                (
                    "renewalPrice",
                    .record([("amount", .string(nullable: false)), ("currency", .string(nullable: false))], what: "renewal price")
                ),
                ("offerEndsAt", .instant(nullable: true)),
                (
                    "commitment",
                    .record(
                        [("period", .integer), ("periods", .integer), ("endsAt", .instant(nullable: false))],
                        what: "commitment")
                ),
                ("manage", .string(nullable: true)),
            ], what: "product")
        let offer = Shape.record(
            [
                ("store", store),
                ("eligible", .bool(nullable: false)),
                ("reason", .choice(OfferReason.allCases.map(\.rawValue), what: "offer reason", nullable: true)),
                ("introOfferEligible", .bool(nullable: true)),
                ("change", .choice(SubscriptionChange.allCases.map(\.rawValue), what: "subscription change", nullable: true)),
                ("effective", .choice(ChangeTiming.allCases.map(\.rawValue), what: "timing", nullable: true)),
                ("legal", .string(nullable: true)),
                (
                    "promotions",
                    .records(
                        [
                            ("id", .string(nullable: false)),
                            ("type", .choice(SubscriptionOfferType.allCases.map(\.rawValue), what: "offer type", nullable: false)),
                            ("eligible", .bool(nullable: false)),
                            ("reason", .choice(PromotionReason.allCases.map(\.rawValue), what: "promotion reason", nullable: false)),
                        ], what: "promotion")
                ),
                ("adds", .strings), ("extends", .strings),
            ], what: "offer")
        // Another store's product by its id alone, where no other product has that id.
        var byId: [String: [String]] = [:]
        for product in catalog.products { byId[product.id, default: []].append(product.key) }
        var aliases: [String: String] = [:]
        for (id, keys) in byId where keys.count == 1 && keys[0] != id { aliases[id] = keys[0] }
        let consumables = catalog.products.filter { $0.type == .consumable }.map(\.key)
        var refused: [String: String] = [:]
        for id in consumables {
            refused[id] = "`\(id)` is a consumable: consumables have no state; expect its credits in `balances`"
        }
        for (name, key) in aliases where refused[key] != nil { refused[name] = refused[key] }
        shape = .record(
            [
                ("features", Self.map(catalog.featureIds, what: "feature", value: feature)),
                ("balances", Self.map(catalog.currencyIds, what: "currency", value: .balance)),
                (
                    "limits",
                    Self.map(
                        catalog.limits.map(\.id), what: "limit",
                        value: .record([("value", .limitValue), ("sources", .strings), ("until", .instant(nullable: true))], what: "limit"))
                ),
                (
                    "products",
                    Self.map(
                        catalog.products.filter { $0.type != .consumable }.map(\.key), what: "product",
                        value: product, refused: refused, aliases: aliases.filter { refused[$0.value] == nil })
                ),
                ("offers", Self.map(catalog.products.map(\.key), what: "product", value: offer, aliases: aliases)),
                ("reevaluateAt", .instant(nullable: true)),
                ("consentRescinded", .instant(nullable: true)),
                ("warnings", .warnings),
                ("consumption", .ids(what: "transaction", value: Self.consumptionReply)),
                ("retention", .ids(what: "subscription chain", value: Self.retentionReply)),
            ], what: "expect")
    }

    /// A consumption reply as a test file expects it: its reason and the consented body's fields
    /// (``TestRunner`` asks with the customer's consent), or the error when there is no reply.
    static var consumptionReply: Shape {
        .record(
            [
                ("reason", .choice(["delivered", "not-delivered"], what: "consumption reason", nullable: false)),
                ("deliveryStatus", .choice(ConsumptionReply.DeliveryStatus.allCases.map(\.rawValue), what: "delivery status", nullable: false)),
                ("consumptionPercentage", .integer),
                ("refundPreference", .choice(RefundPreference.allCases.map(\.appleValue), what: "refund preference", nullable: true)),
                ("sampleContentProvided", .bool(nullable: false)),
                ("error", .string(nullable: true)),
            ], what: "consumption reply")
    }

    /// A retention answer as a test file expects it: the request's product (and locale), which
    /// ``TestRunner`` asks with, and the rule, reason and Apple's body, or the error.
    static var retentionReply: Shape {
        .record(
            [
                ("productId", .string(nullable: false)), ("userLocale", .string(nullable: true)), ("rule", .string(nullable: true)),
                (
                    "reason",
                    .choice(
                        ["rule-matched", "no-rule-matched", "not-subscribed", "not-the-customers-chain", "consent-rescinded"],
                        what: "retention reason", nullable: false)
                ),
                ("reply", .json), ("error", .string(nullable: true)),
            ], what: "retention answer")
    }

    private static func map(
        _ ids: [String], what: String, value: Shape, refused: [String: String] = [:], aliases: [String: String] = [:]
    ) -> Shape {
        .map(ids: ids, known: Set(ids), what: what, value: value, refused: refused, aliases: aliases)
    }

    // MARK: Checking the expectation

    /// Reports what in `expect` the result could never have: unknown keys (with "did you mean"),
    /// ids the catalog does not define, values of the wrong type, names that are not states or
    /// reasons, instants that are not instants.
    func check(_ expect: JSONNode, path: String, reader: inout JSONShapeReader) {
        check(expect, shape: shape, path: path, reader: &reader)
    }

    private func check(_ node: JSONNode, shape: Shape, path: String, reader: inout JSONShapeReader) {
        switch shape {
        case .bool(let nullable):
            if nullable, case .null = node.value { return }
            guard case .bool = node.value else {
                reader.wrongType(node, expected: nullable ? "`true`, `false` or `null`" : "`true` or `false`", path: path)
                return
            }
        case .integer:
            guard case .number(let number) = node.value, number.integer != nil else {
                if case .number(let number) = node.value {
                    reader.report(.wrongType, "expected an integer, found `\(number.text)`", at: node.offset, path: path)
                } else {
                    reader.wrongType(node, expected: "an integer", path: path)
                }
                return
            }
        case .balance:
            if case .object = node.value {
                check(node, shape: Self.ledgerBalance, path: path, reader: &reader)
            } else {
                check(node, shape: .integer, path: path, reader: &reader)
            }
        case .limitValue:
            switch node.value {
            case .number(let number) where number.integer != nil: return
            case .string(LimitValue.unlimited.description): return
            default:
                reader.report(
                    .wrongType, "expected a whole number or `\"unlimited\"`", at: node.offset, path: path,
                    help: "a limit's value is a number, or `\"unlimited\"`")
            }
        case .string(let nullable):
            if nullable, case .null = node.value { return }
            _ = reader.string(node, path: path)
        case .instant(let nullable):
            if nullable, case .null = node.value { return }
            _ = reader.instant(node, path: path)
        case .choice(let names, let what, let nullable):
            if nullable, case .null = node.value { return }
            _ = reader.enumValue(node, path: path, names: names, what: what)
        case .json:
            return
        case .strings:
            guard let elements = reader.array(node, path: path, expected: "an array of strings") else { return }
            for (index, element) in elements.enumerated() { _ = reader.string(element, path: "\(path)[\(index)]") }
        case .warnings:
            guard let elements = reader.array(node, path: path, expected: "an array of warnings") else { return }
            for (index, element) in elements.enumerated() {
                let elementPath = "\(path)[\(index)]"
                guard
                    let fields = reader.object(
                        element, path: elementPath, allowed: ["code", "message"],
                        required: ["code", "message"], what: "warning")
                else { continue }
                for (key, member) in fields { _ = reader.string(member.value, path: CatalogChecker.path(elementPath, key: key)) }
            }
        case .records(let fields, let what):
            guard let elements = reader.array(node, path: path, expected: "an array of \(what)s") else { return }
            for (index, element) in elements.enumerated() {
                let elementPath = "\(path)[\(index)]"
                check(element, shape: .record(fields, what: what), path: elementPath, reader: &reader)
                // Entries are found by their id: each needs one.
                if case .object(let members) = element.value, !members.contains(where: { $0.key == "id" }) {
                    reader.report(
                        .missingKey, "missing required key `id` in \(what)", at: element.offset, path: elementPath,
                        help: "entries are matched by their id: `{ \"id\": \"...\", ... }`")
                }
            }
        case .record(let fields, let what):
            guard let members = reader.object(node, path: path, allowed: ["$comment"] + fields.map(\.key), required: [], what: what)
            else { return }
            for field in fields {
                if let member = members[field.key] {
                    check(member.value, shape: field.shape, path: CatalogChecker.path(path, key: field.key), reader: &reader)
                }
            }
        case .ids(let what, let value):
            guard let members = reader.members(node, path: path, expected: "an object of \(what) ids") else { return }
            for member in members where member.key != "$comment" {
                check(member.value, shape: value, path: CatalogChecker.path(path, key: member.key), reader: &reader)
            }
        case .map(let ids, let known, let what, let value, let refused, let aliases):
            guard let members = reader.members(node, path: path, expected: "an object of \(what) ids") else { return }
            var named: [String: String] = [:]
            for member in members {
                let memberPath = CatalogChecker.path(path, key: member.key)
                if let key = known.contains(member.key) ? member.key : aliases[member.key] {
                    // One product under two names (`prod_Pro` and `stripe:prod_Pro`) is expected twice.
                    if let other = named.updateValue(member.key, forKey: key), other != member.key {
                        reader.report(
                            .duplicateKey, "`\(member.key)` and `\(other)` name one \(what), `\(key)`", at: member.keyOffset, path: memberPath,
                            help: "expect it once, by its key `\(key)`")
                    }
                    check(member.value, shape: value, path: memberPath, reader: &reader)
                } else if let reason = refused[member.key] {
                    reader.report(.keyNotAllowed, reason, at: member.keyOffset, path: memberPath)
                } else {
                    let suggestion =
                        what == "product"
                        ? catalog.help(forUnknownProduct: member.key) : Suggestion.help(for: member.key, in: ids, budget: &reader.suggestions)
                    reader.report(
                        .unknownKey, "`\(member.key)` is not a \(what) of `\(catalog.app)`", at: member.keyOffset,
                        path: memberPath,
                        help: suggestion ?? (ids.isEmpty ? "the catalog has none" : "its \(what) ids are \(CatalogChecker.list(ids))"))
                }
            }
        }
    }

    // MARK: Matching a result

    /// Every difference between a checked expectation and `result` (the object
    /// `check --format json` prints, parsed), in the order of the expectation.
    ///
    /// - Parameter exactly: compare lists of objects with ids whole, not entry by entry.
    func mismatches(_ expect: JSONNode, result: JSONNode, exactly: Bool = false) -> [Mismatch] {
        var found: [Mismatch] = []
        compare(expect, result, shape: shape, path: "", exactly: exactly, into: &found)
        return found
    }

    private func compare(
        _ expected: JSONNode, _ actual: JSONNode?, shape: Shape, path: String, exactly: Bool, into found: inout [Mismatch]
    ) {
        switch shape {
        case .records(let fields, let what) where !exactly:
            guard case .array(let elements) = expected.value else { return }
            var byId: [String: JSONNode] = [:]
            if let actual, case .array(let present) = actual.value {
                for element in present {
                    if case .string(let id)? = Self.member("id", of: element)?.value, byId[id] == nil { byId[id] = element }
                }
            }
            for element in elements {
                guard case .string(let id)? = Self.member("id", of: element)?.value else { continue }
                let elementPath = "\(path)[\(id)]"
                guard let match = byId[id] else {
                    found.append(mismatch(elementPath, element, nil))
                    continue
                }
                compare(element, match, shape: .record(fields, what: what), path: elementPath, exactly: exactly, into: &found)
            }
        case .record(let fields, _):
            guard case .object(let members) = expected.value else { return }
            for member in members where member.key != "$comment" {
                guard let field = fields.first(where: { $0.key == member.key }) else { continue }
                compare(
                    member.value, Self.member(member.key, of: actual), shape: field.shape,
                    path: CatalogChecker.path(path, key: member.key), exactly: exactly, into: &found)
            }
        case .map(_, _, _, let value, _, _), .ids(_, let value):
            guard case .object(let members) = expected.value else { return }
            var aliases: [String: String] = [:]
            if case .map(_, _, _, _, _, let names) = shape { aliases = names }
            // A result lists every id of the catalog: look them up by name, not one by one.
            var byKey: [String: JSONNode] = [:]
            if let actual, case .object(let present) = actual.value {
                byKey = Dictionary(present.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            }
            for member in members where member.key != "$comment" {
                compare(
                    member.value, byKey[member.key] ?? aliases[member.key].flatMap { byKey[$0] }, shape: value,
                    path: CatalogChecker.path(path, key: member.key), exactly: exactly, into: &found)
            }
        case .instant:
            if !Self.sameInstant(expected, actual) { found.append(mismatch(path, expected, actual)) }
        case .balance:
            // A number is the balance, whichever form the result has; an object, its members.
            if case .object = expected.value {
                compare(expected, actual, shape: Self.ledgerBalance, path: path, exactly: exactly, into: &found)
            } else if let actual, case .object = actual.value {
                compare(expected, Self.member("balance", of: actual), shape: .integer, path: path, exactly: exactly, into: &found)
            } else {
                compare(expected, actual, shape: .integer, path: path, exactly: exactly, into: &found)
            }
        default:
            if !Self.equal(expected, actual) { found.append(mismatch(path, expected, actual)) }
        }
    }

    private func mismatch(_ path: String, _ expected: JSONNode, _ actual: JSONNode?) -> Mismatch {
        Mismatch(path: path, offset: expected.offset, expected: Self.output(expected), actual: actual.map(Self.output) ?? .null)
    }

    /// The keys of `expect`'s member `key` (the transactions a case asks about), `nil` without one.
    static func ids(in expect: JSONNode, key: String) -> [String]? {
        guard case .object(let members)? = member(key, of: expect)?.value else { return nil }
        return members.map(\.key).filter { $0 != "$comment" }
    }

    /// A member of an object, or `nil` (read as `null`: the result leaves out keys it has no
    /// value for, such as `reason` of an eligible offer).
    static func member(_ key: String, of node: JSONNode?) -> JSONNode? {
        guard let node, case .object(let members) = node.value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Two instants (or two nulls) that are the same instant, however written.
    static func sameInstant(_ expected: JSONNode, _ actual: JSONNode?) -> Bool {
        switch (expected.value, actual?.value) {
        case (.null, .null?), (.null, nil): return true
        case (.string(let a), .string(let b)?):
            guard let left = Instant(rfc3339: a), let right = Instant(rfc3339: b) else { return a == b }
            return left == right
        default: return false
        }
    }

    /// Whether two values are equal: objects whatever the order of their keys, arrays element by
    /// element, numbers by value; a missing value is `null`.
    static func equal(_ a: JSONNode?, _ b: JSONNode?) -> Bool {
        switch (a?.value ?? .null, b?.value ?? .null) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.number(let x), .number(let y)):
            if let left = x.integer, let right = y.integer { return left == right }
            return x.text == y.text
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            return x.allSatisfy { member in y.contains { $0.key == member.key && equal(member.value, $0.value) } }
        default: return false
        }
    }

    /// A value of the test file or the result, to print.
    static func output(_ node: JSONNode) -> JSONOutput {
        switch node.value {
        case .object(let members): .object(members.map { ($0.key, output($0.value)) })
        case .array(let elements): .array(elements.map(output))
        case .string(let value): .string(value)
        // Only integers reach here (a checked expectation has no other numbers, a result none);
        // another number is shown as written.
        case .number(let number): number.integer.map(JSONOutput.integer) ?? .string(number.text)
        case .bool(let value): .bool(value)
        case .null: .null
        }
    }
}
