import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// Number limits: declared in the catalog, given values by covering products, worked out at every
/// instant a source starts or ends.
@Suite("Number limits")
struct LimitTests {
    static let app = "com.example.limits"

    /// A catalog with a `max` limit (`projects`, default `projectsDefault`) and a `sum` limit
    /// (`seats`, default 1), a monthly Pro (50 projects), a Team (unlimited projects, 1 seat per
    /// seat bought), a lifetime (10 projects) and a pass group of day passes (20 projects).
    static func catalog(projectsDefault: Int = 3, extra: String = "") -> String {
        """
        {
          "app": "\(app)",
          "features": { "pro": "Pro" },
          "limits": {
            "projects": { "description": "Projects", "default": \(projectsDefault) },
            "seats": { "description": "Seats", "default": 1, "combine": "sum" }
          },
          "legal": { "auto-renewable-subscription": "Renews.", "non-renewing-subscription": "Does not renew." },
          "products": [
            { "id": "pro", "type": "auto-renewable-subscription", "name": "Pro", "group": "pro", "duration": "P1M",
              "grants": ["pro"], "limits": { "projects": 50 } },
            { "id": "team", "type": "auto-renewable-subscription", "name": "Team", "group": "team", "duration": "P1M",
              "grants": ["pro"], "limits": { "projects": "unlimited", "seats": 1 } },
            { "id": "lifetime", "type": "non-consumable", "name": "Lifetime", "grants": ["pro"], "limits": { "projects": 10 } },
            { "id": "day", "type": "non-renewing-subscription", "name": "Day", "duration": "P1D", "grants": ["pro"],
              "limits": { "projects": 20, "seats": 2 } }\(extra)
          ]
        }
        """
    }

    static func evaluate(_ catalog: CompiledCatalog, _ transactions: [Transaction], at: String, receipts extra: [Receipt] = []) -> Entitlements {
        catalog.evaluate([Receipt(app: app, transactions: transactions)] + extra, at: Fixtures.instant(at))
    }

    static func pro(_ id: String, _ purchase: String, _ expires: String, quantity: Int = 1, cancelled: String? = nil) -> Transaction {
        Fixtures.transaction("pro", id, purchase, expires: expires, cancelled: cancelled, original: "p", quantity: quantity)
    }

    static func team(_ id: String, _ purchase: String, _ expires: String, quantity: Int) -> Transaction {
        Fixtures.transaction("team", id, purchase, expires: expires, original: "t", quantity: quantity)
    }

    // MARK: Checking

    static func diagnostics(_ json: String) -> [Diagnostic] { Fixtures.compile(json).diagnostics }

    @Test("a product's limit the catalog does not declare is located, with a did-you-mean, and nothing compiles")
    func undeclaredLimit() throws {
        let json = Self.catalog().replacingOccurrences(of: #""limits": { "projects": 10 }"#, with: #""limits": { "project": 10 }"#)
        let compilation = Fixtures.compile(json)
        #expect(compilation.portfolio == nil)
        let error = try #require(compilation.diagnostics.first { $0.code == .undeclaredLimit })
        #expect(error.message == "undeclared limit `project`")
        #expect(error.path == "products[2].limits.project")
        #expect(error.help == "did you mean `projects`?")
        let line = json.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(#""project": 10"#) }!
        #expect(error.location?.line == line + 1)
    }

    @Test("a limit value is a whole number from 0 to 10^12 or \"unlimited\": every other value is a located error")
    func badValues() {
        func errors(_ value: String) -> [Diagnostic] {
            Self.diagnostics(Self.catalog().replacingOccurrences(of: #""limits": { "projects": 10 }"#, with: #""limits": { "projects": \#(value) }"#))
                .filter { $0.severity == .error }
        }
        #expect(errors("0").isEmpty)
        #expect(errors("1000000000000").isEmpty)
        #expect(errors(#""unlimited""#).isEmpty)
        for bad in ["-1", "1000000000001", "2.5", "true", "null", "[1]"] {
            let found = errors(bad)
            #expect(found.count == 1, "\(bad)")
            #expect(found.first?.path == "products[2].limits.projects", "\(bad)")
        }
        #expect(errors(#""unlimted""#).first?.help == "did you mean `unlimited`?")
        #expect(errors(#""50""#).first?.help == "write the number without quotes: 50")
    }

    @Test("declarations: description required, default in range, combine max or sum, keys of the language only")
    func declarations() {
        func errors(_ declaration: String) -> [Diagnostic] {
            Self.diagnostics(
                Self.catalog().replacingOccurrences(
                    of: #""projects": { "description": "Projects", "default": 3 }"#, with: #""projects": \#(declaration)"#)
            ).filter { $0.severity == .error }
        }
        #expect(errors(#"{ "description": "Projects" }"#).isEmpty)
        #expect(errors(#"{ "default": 3 }"#).map(\.code) == [.missingKey])
        #expect(errors(#"{ "description": "P", "default": -1 }"#).first?.path == "limits.projects.default")
        #expect(errors(#"{ "description": "P", "default": 1000000000001 }"#).first?.path == "limits.projects.default")
        let combine = errors(#"{ "description": "P", "combine": "summ" }"#)
        #expect(combine.first?.path == "limits.projects.combine")
        #expect(combine.first?.help?.contains("`sum`") == true)
        let unknown = errors(#"{ "description": "P", "defualt": 3 }"#)
        #expect(unknown.first?.code == .unknownKey)
        #expect(unknown.first?.help == "did you mean `default`?")
        #expect(errors(#""three""#).first?.code == .wrongType)
        // A broken declaration is its own error: uses of its id are not "undeclared" too.
        #expect(!errors(#"{ "description": "P", "default": "x" }"#).contains { $0.code == .undeclaredLimit })
    }

    @Test("limits go on products that cover: not on a consumable, nor on an Advanced Commerce product")
    func placement() {
        let consumable = Self.diagnostics(
            Self.catalog(
                extra: #", { "id": "pack", "type": "consumable", "name": "Pack", "credits": { "c": 1 }, "limits": { "projects": 5 } }"#
            ).replacingOccurrences(of: #""features": { "pro": "Pro" },"#, with: #""features": { "pro": "Pro" }, "currencies": { "c": "C" },"#))
        #expect(consumable.contains { $0.code == .keyNotAllowed && $0.path == "products[4].limits" })
        let items = Self.diagnostics(
            Self.catalog(
                extra:
                    #", { "id": "ac", "type": "auto-renewable-subscription", "name": "AC", "group": "ac", "items": { "sku.a": { "grants": ["pro"] } }, "limits": { "projects": 5 } }"#
            ))
        let error = items.first { $0.code == .keyNotAllowed }
        #expect(error?.path == "products[4].limits")
        #expect(error?.message.contains("Advanced Commerce") == true)
    }

    @Test("a limit may not share an id with a feature or a currency; a feature and a currency sharing one warns")
    func sharedIds() {
        let clash = Self.diagnostics(Self.catalog().replacingOccurrences(of: #""seats": { "description""#, with: #""pro": { "description""#))
        let error = clash.first { $0.code == .sharedId }
        #expect(error?.severity == .error)
        #expect(error?.message == "limit `pro` has the id of a feature")
        #expect(error?.path == "limits.pro")
        let currency = Self.diagnostics(
            Self.catalog().replacingOccurrences(
                of: #""features": { "pro": "Pro" },"#, with: #""features": { "pro": "Pro" }, "currencies": { "pro": "Pro credits" },"#))
        let warning = currency.first { $0.code == .sharedId }
        #expect(warning?.severity == .warning)
        #expect(warning?.message == "currency `pro` has the id of a feature")
        #expect(warning?.help?.contains("`balance:pro`") == true)
    }

    // MARK: Values

    @Test("max: the largest covering value, never below the default; from the purchase instant to the expiry, half-open")
    func maxAtBoundaries() throws {
        let catalog = Fixtures.catalog(Self.catalog())
        let transactions = [Self.pro("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let before = Self.evaluate(catalog, transactions, at: "2025-12-31T23:59:59.999Z").limit("projects")
        #expect(before == LimitStatus(id: "projects", value: .count(3), sources: [], until: nil))
        let bought = Self.evaluate(catalog, transactions, at: "2026-01-01T00:00:00Z")
        #expect(
            bought.limit("projects")
                == LimitStatus(id: "projects", value: .count(50), sources: ["pro"], until: Fixtures.instant("2026-02-01T00:00:00Z")))
        #expect(bought.reevaluateAt == Fixtures.instant("2026-02-01T00:00:00Z"))
        let last = Self.evaluate(catalog, transactions, at: "2026-01-31T23:59:59.999Z").limit("projects")
        #expect(last?.value == .count(50))
        let ended = Self.evaluate(catalog, transactions, at: "2026-02-01T00:00:00Z").limit("projects")
        #expect(ended == LimitStatus(id: "projects", value: .count(3), sources: [], until: nil))
        // A default above what a product gives is the value, from no source.
        let high = Fixtures.catalog(Self.catalog(projectsDefault: 60))
        #expect(
            Self.evaluate(high, transactions, at: "2026-01-10T00:00:00Z").limit("projects")
                == LimitStatus(id: "projects", value: .count(60), sources: [], until: nil))
        // A product giving the default's value gives it.
        let equal = Fixtures.catalog(Self.catalog(projectsDefault: 50))
        #expect(Self.evaluate(equal, transactions, at: "2026-01-10T00:00:00Z").limit("projects")?.sources == ["pro"])
        #expect(bought.limit("nope") == nil)
        // What a service asks of a value: whether more fit, without overflow.
        #expect(LimitValue.count(3).allows(1, used: 2) && !LimitValue.count(3).allows(2, used: 2))
        #expect(LimitValue.unlimited.allows(.max, used: .max) && !LimitValue.count(.max).allows(1, used: .max))
        #expect(try #require(bought.limit("seats")).value == .count(1))
    }

    @Test("until is the next instant the value changes: not where one of two sources of the largest value ends")
    func untilSkipsEndsThatChangeNothing() {
        let catalog = Fixtures.catalog(
            Self.catalog().replacingOccurrences(of: #""limits": { "projects": 10 }"#, with: #""limits": { "projects": 50 }"#))
        let transactions = [
            Self.pro("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"),
            Fixtures.transaction("lifetime", "L", "2026-01-05T00:00:00Z"),
        ]
        let both = Self.evaluate(catalog, transactions, at: "2026-01-10T00:00:00Z").limit("projects")
        #expect(both == LimitStatus(id: "projects", value: .count(50), sources: ["lifetime", "pro"], until: nil))
        // Refunded: the lifetime's 50 go with it, the subscription's stay until it ends.
        let refunded = [transactions[0], Fixtures.transaction("lifetime", "L", "2026-01-05T00:00:00Z", cancelled: "2026-01-08T00:00:00Z")]
        let after = Self.evaluate(catalog, refunded, at: "2026-01-10T00:00:00Z").limit("projects")
        #expect(after == LimitStatus(id: "projects", value: .count(50), sources: ["pro"], until: Fixtures.instant("2026-02-01T00:00:00Z")))
    }

    @Test("sum: each covering product's value times its covering transaction's quantity, unlimited wins, the default only when none covers")
    func sumWithQuantities() {
        let catalog = Fixtures.catalog(Self.catalog())
        let transactions = [
            Self.team("t1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", quantity: 5),
            Self.team("t2", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z", quantity: 7),
            Fixtures.transaction("day", "d1", "2026-01-10T00:00:00Z", quantity: 1),
        ]
        let january = Self.evaluate(catalog, transactions, at: "2026-01-05T00:00:00Z")
        #expect(
            january.limit("seats") == LimitStatus(id: "seats", value: .count(5), sources: ["team"], until: Fixtures.instant("2026-02-01T00:00:00Z")))
        #expect(january.limit("projects")?.value == .unlimited)
        // A day pass on top adds its 2 for its day, and the value changes where it ends.
        let withPass = Self.evaluate(catalog, transactions, at: "2026-01-10T00:00:00Z")
        #expect(
            withPass.limit("seats")
                == LimitStatus(id: "seats", value: .count(7), sources: ["day", "team"], until: Fixtures.instant("2026-01-11T00:00:00Z")))
        #expect(withPass.reevaluateAt == Fixtures.instant("2026-01-11T00:00:00Z"))
        // The renewal's quantity from its purchase instant.
        #expect(Self.evaluate(catalog, transactions, at: "2026-02-01T00:00:00Z").limit("seats")?.value == .count(7))
        #expect(
            Self.evaluate(catalog, transactions, at: "2026-03-01T00:00:00Z").limit("seats")
                == LimitStatus(id: "seats", value: .count(1), sources: [], until: nil))
        // Without a source the default, 1; with the pass alone its 2 (the default does not add).
        let passOnly = Self.evaluate(catalog, [transactions[2]], at: "2026-01-10T12:00:00Z")
        #expect(passOnly.limit("seats")?.value == .count(2))
    }

    @Test("a scheduled pass gives its value from its start: the value's until is that start")
    func scheduledStart() {
        let catalog = Fixtures.catalog(
            Self.catalog().replacingOccurrences(of: #""duration": "P1D", "grants""#, with: #""duration": "P1D", "group": "passes", "grants""#))
        let passes = [
            Fixtures.transaction("day", "d1", "2026-01-10T00:00:00Z"),
            Fixtures.transaction("day", "d2", "2026-01-10T01:00:00Z"),
        ]
        let first = Self.evaluate(catalog, passes, at: "2026-01-10T02:00:00Z").limit("projects")
        // The second pass stacks after the first: one unbroken day of 20, then two.
        #expect(first == LimitStatus(id: "projects", value: .count(20), sources: ["day"], until: Fixtures.instant("2026-01-12T00:00:00Z")))
    }

    @Test("once the customer rescinded consent, every limit is its default")
    func consentRescinded() {
        let catalog = Fixtures.catalog(Self.catalog())
        let receipt = Receipt(
            app: Self.app, transactions: [Self.pro("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")],
            consentRescinded: Fixtures.instant("2026-01-10T00:00:00Z"))
        let before = catalog.evaluate([receipt], at: Fixtures.instant("2026-01-09T00:00:00Z")).limit("projects")
        #expect(before?.value == .count(50))
        let after = catalog.evaluate([receipt], at: Fixtures.instant("2026-01-10T00:00:00Z")).limit("projects")
        #expect(after == LimitStatus(id: "projects", value: .count(3), sources: [], until: nil))
    }

    @Test("the answer does not depend on the order of receipts or transactions")
    func orderDoesNotMatter() {
        let catalog = Fixtures.catalog(Self.catalog())
        let receipts = [
            Receipt(app: Self.app, transactions: [Self.pro("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", quantity: 2)]),
            Receipt(
                app: Self.app,
                transactions: [
                    Self.team("t1", "2026-01-03T00:00:00Z", "2026-02-03T00:00:00Z", quantity: 4),
                    Fixtures.transaction("day", "d1", "2026-01-10T00:00:00Z", quantity: 3),
                ]),
        ]
        for at in ["2026-01-02T00:00:00Z", "2026-01-10T05:00:00Z", "2026-02-02T00:00:00Z", "2026-02-04T00:00:00Z"] {
            let forward = catalog.evaluate(receipts, at: Fixtures.instant(at))
            let reversed = catalog.evaluate(
                receipts.reversed().map { Receipt(app: $0.app, transactions: $0.transactions.reversed()) }, at: Fixtures.instant(at))
            #expect(forward.limits == reversed.limits, "\(at)")
        }
    }

    // MARK: The answer

    @Test("JSON: `limits` only in a catalog that declares some, shaped as features, read back by the record")
    func json() throws {
        let catalog = Fixtures.catalog(Self.catalog())
        let result = Self.evaluate(
            catalog, [Self.team("t1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", quantity: 5)], at: "2026-01-05T00:00:00Z")
        #expect(
            result.jsonOutput.compact().contains(
                #""balances":{},"limits":{"projects":{"value":"unlimited","sources":["team"],"until":"2026-02-01T00:00:00Z"},"seats":{"value":5,"sources":["team"],"until":"2026-02-01T00:00:00Z"}},"products":"#
            ))
        let record = result.record
        let decoded = try JSONDecoder().decode(EntitlementsRecord.self, from: JSONEncoder().encode(record))
        #expect(decoded == record)
        #expect(decoded.limits.map(\.id) == ["projects", "seats"])
        #expect(decoded.limits[0].value == .unlimited)
        // The diagrams example declares none: its answer has no `limits` at all.
        let diagrams = Diagrams.evaluate([], at: "2026-01-05T00:00:00Z")
        #expect(!diagrams.jsonOutput.compact().contains("\"limits\""))
        #expect(diagrams.limits.isEmpty)
        #expect(Fixtures.diagrams.explain([Receipt(app: Diagrams.app)], at: Fixtures.instant("2026-01-05T00:00:00Z")).limits == nil)
    }

    @Test("explain --limit tells each product giving a value, whether it covers and what it gives")
    func explainLimit() throws {
        let catalog = Fixtures.catalog(Self.catalog())
        let explanation = catalog.explain(
            [Receipt(app: Self.app, transactions: [Self.pro("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")])],
            at: Fixtures.instant("2026-01-05T00:00:00Z"))
        let limit = try #require(explanation.limit("projects"))
        #expect(limit.value == .count(50))
        #expect(limit.sources.map(\.product) == ["pro", "team", "lifetime", "day"])
        #expect(limit.sources.map(\.gives) == [true, false, false, false])
        let text = try #require(explanation.text(limit: "projects"))
        #expect(text.contains("limit projects: 50 until 2026-02-01T00:00:00Z\n"))
        #expect(text.contains("  pro       50         gives it: it covers with the largest value until 2026-02-01T00:00:00Z\n"))
        #expect(text.contains("  team      unlimited  it does not cover (not-purchased)\n"))
        #expect(
            explanation.json(limit: "projects")?.hasPrefix(#"{"app":"com.example.limits","at":"2026-01-05T00:00:00Z","ignoredReceipts":[],"limit":{"#)
                == true)
        #expect(explanation.text(limit: "nope") == nil)
    }

    @Test("the command line: check shows limits, explain --limit refuses an unknown id with a did-you-mean")
    func commandLine() {
        let writer = CLITests.receipt("quill-writer.json")
        let web = CLITests.receipt("quill-team-web.json")
        let check = CLITests.run(["check", "--catalog", CLITests.products, "--receipt", writer, "--receipt", web, "--at", "2026-01-10T00:00:00Z"])
        #expect(check.exitCode == 0)
        #expect(
            check.standardOutput.contains(
                "\nlimits\n  projects  unlimited  from stripe:prod_QuillTeam until 2026-02-10T00:00:00Z\n  seats     5  from stripe:prod_QuillTeam until 2026-02-10T00:00:00Z\n"
            ))
        let unknown = CLITests.run(["explain", "--catalog", CLITests.products, "--receipt", writer, "--limit", "project"])
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError.contains("has no limit `project`"))
        #expect(unknown.standardError.contains("did you mean `projects`?"))
    }

    @Test("a customer's changes name a limit whose value moved; a lower one is a loss, and reads back")
    func changes() throws {
        let catalog = Fixtures.catalog(Self.catalog())
        let transactions = [Self.pro("1", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")]
        let during = Self.evaluate(catalog, transactions, at: "2026-01-10T00:00:00Z")
        let after = Self.evaluate(catalog, transactions, at: "2026-02-10T00:00:00Z")
        let change = try #require(after.changes(since: during).first { $0.kind == .limit })
        #expect(change == EntitlementChange(kind: .limit, id: "projects", from: .limit(.count(50)), to: .limit(.count(3))))
        #expect(change.isLoss && change.description == "limit projects: 50 -> 3")
        #expect(!(during.changes(since: after).first { $0.kind == .limit }?.isLoss ?? true))
        let decoded = try JSONDecoder().decode(EntitlementChange.self, from: JSONEncoder().encode(change))
        #expect(decoded == change)
        let unlimited = EntitlementChange(kind: .limit, id: "projects", from: .limit(.unlimited), to: .limit(.count(50)))
        #expect(unlimited.isLoss)
        #expect(try JSONDecoder().decode(EntitlementChange.self, from: JSONEncoder().encode(unlimited)) == unlimited)
    }

    @Test("diff --prove finds who loses when a product's limit drops, with a witness, and nothing when only a name changes")
    func proof() throws {
        let old = try #require(Fixtures.compile(Self.catalog()).portfolio)
        let lowered = try #require(
            Fixtures.compile(Self.catalog().replacingOccurrences(of: #""limits": { "projects": 50 }"#, with: #""limits": { "projects": 40 }"#))
                .portfolio)
        var options = ProofOptions()
        options.depth = 1
        let report = CatalogProof.compare(old, lowered, options: options)
        let item = try #require(report.items.first { $0.item.kind == .limit && $0.item.id == "projects" })
        #expect(item.verdict == .less)
        #expect(item.witnesses.first?.old == "50" && item.witnesses.first?.new == "40")
        #expect(report.items.first { $0.item.kind == .limit && $0.item.id == "seats" }?.verdict == .same)
        let renamed = try #require(
            Fixtures.compile(Self.catalog().replacingOccurrences(of: #""name": "Lifetime""#, with: #""name": "Forever""#)).portfolio)
        #expect(CatalogProof.compare(old, renamed, options: options).items.allSatisfy { $0.verdict == .same })
    }

    @Test("diff: lowering or removing a product's limit is dangerous, raising it is not")
    func diffDanger() {
        let old = Fixtures.catalog(Self.catalog())
        func change(_ from: String, _ to: String) -> CatalogChange? {
            CatalogDiff.changes(from: old, to: Fixtures.catalog(Self.catalog().replacingOccurrences(of: from, with: to)))
                .first { $0.field == "limits" }
        }
        let lowered = change(#""limits": { "projects": 50 }"#, #""limits": { "projects": 40 }"#)
        #expect(lowered?.dangerous == true)
        #expect(lowered?.why == "limits of customers who bought it drop (`projects`)")
        #expect(lowered?.from == "projects 50" && lowered?.to == "projects 40")
        #expect(change(#""limits": { "projects": 50 }"#, #""limits": { "projects": "unlimited" }"#)?.dangerous == false)
        #expect(change(#""limits": { "projects": "unlimited", "seats": 1 }"#, #""limits": { "projects": 1000, "seats": 1 }"#)?.dangerous == true)
        #expect(change(#""limits": { "projects": 20, "seats": 2 }"#, #""limits": { "projects": 20 }"#)?.dangerous == true)
        // The declarations: a lower default and another way to combine are dangerous, a new limit is not.
        func declared(_ from: String, _ to: String) -> [CatalogChange] {
            CatalogDiff.changes(from: old, to: Fixtures.catalog(Self.catalog().replacingOccurrences(of: from, with: to)))
                .filter { $0.kind == .limitAdded || $0.kind == .limitRemoved || $0.kind == .limitChanged }
        }
        let lowerDefault = declared(#""description": "Projects", "default": 3"#, #""description": "Projects", "default": 2"#)
        #expect(lowerDefault.map(\.description) == ["com.example.limits: limit-changed projects default: 3 -> 2"])
        #expect(lowerDefault.first?.dangerous == true)
        #expect(declared(#""description": "Projects", "default": 3"#, #""description": "Projects", "default": 4"#).first?.dangerous == false)
        let combine = declared(#""default": 1, "combine": "sum""#, #""default": 1"#)
        #expect(combine.first?.field == "combine" && combine.first?.from == "sum" && combine.first?.to == "max" && combine.first?.dangerous == true)
        let added = declared(
            #""seats": { "description": "Seats","#, #""rooms": { "description": "Rooms", "default": 0 }, "seats": { "description": "Seats","#)
        #expect(added.map(\.kind) == [.limitAdded] && added.first?.id == "rooms" && added.first?.dangerous == false)
    }
}
