import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

@Suite("Timeline pictures (explain --format svg)")
struct TimelineSVGTests {
    static let trial = ParsedReceipt(Fixtures.receipt(try! String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8)))

    static func explain(_ receipts: [ParsedReceipt], at: String, app: String = Diagrams.app) -> Explanation {
        try! Fixtures.examples.explain(app: app, receipts: receipts, at: Fixtures.instant(at))
    }

    static func receipt(_ name: String) -> ParsedReceipt {
        ParsedReceipt(Fixtures.receipt(try! String(contentsOfFile: CLITests.receipt(name), encoding: .utf8)))
    }

    /// What every picture must be: well-formed, an `<svg>` of its stated size, every pattern it
    /// uses defined, and nothing a browser would run or fetch.
    static func checkSafe(_ svg: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> SVGTree {
        let tree = try SVGTree(svg)
        let root = try #require(tree.elements.first, sourceLocation: sourceLocation)
        #expect(root.name == "svg" && root.attributes["xmlns"] == "http://www.w3.org/2000/svg", sourceLocation: sourceLocation)
        let width = try #require(root.number("width"), sourceLocation: sourceLocation)
        let height = try #require(root.number("height"), sourceLocation: sourceLocation)
        #expect(root.attributes["viewBox"] == "0 0 \(Int(width)) \(Int(height))", sourceLocation: sourceLocation)
        let allowed: Set<String> = ["svg", "title", "defs", "pattern", "rect", "text", "line", "circle", "path", "g"]
        #expect(Set(tree.elements.map(\.name)).isSubset(of: allowed), "\(Set(tree.elements.map(\.name)))", sourceLocation: sourceLocation)
        let defined = Set(tree.elements.compactMap { $0.attributes["id"] })
        for element in tree.elements {
            for (name, value) in element.attributes {
                #expect(
                    !name.lowercased().hasPrefix("on") && !name.lowercased().contains("href") && name != "style",
                    "attribute \(name)", sourceLocation: sourceLocation)
                if value.hasPrefix("url(") {
                    #expect(
                        value.hasPrefix("url(#") && defined.contains(String(value.dropFirst(5).dropLast())), "\(value)",
                        sourceLocation: sourceLocation)
                }
            }
        }
        // Nothing outside the document is named, but the namespace.
        #expect(!svg.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("://"), sourceLocation: sourceLocation)
        return tree
    }

    @Test("every example customer draws as well-formed SVG with nothing to run or fetch, at every instant")
    func examplesAreWellFormed() throws {
        let customers: [(receipts: [String], app: String)] = [
            (["diagrams-trial.json", "diagrams6-owner.json"], Diagrams.app), (["diagrams-paid-app.json"], Diagrams.app),
            (["diagrams-sync-history.json", "diagrams6-owner.json"], Diagrams.app), (["starquest-player.json"], "com.example.starquest"),
            (["diagrams6-owner.json"], Diagrams.oldApp),
        ]
        for customer in customers {
            for at in ["2019-01-01T00:00:00Z", "2026-01-10T00:00:00Z", "2026-02-20T00:00:00Z", "2030-01-01T00:00:00Z"] {
                let explanation = Self.explain(customer.receipts.map(Self.receipt), at: at, app: customer.app)
                let tree = try Self.checkSafe(explanation.svg)
                #expect(tree.all("text").first?.text == "\(customer.app) at \(at)")
            }
        }
    }

    @Test("a known customer: rows, lanes, grace and billing retry striped, marks in time order, the line at the instant")
    func knownCustomer() throws {
        let explanation = Self.explain([Self.trial], at: "2026-02-20T00:00:00Z")
        let tree = try Self.checkSafe(explanation.svg)
        let bold = tree.all("text").filter { $0.attributes["font-weight"] == "bold" }.map(\.text)
        #expect(Array(bold.dropFirst().prefix(4)) == ["pro", "export.pdf", "cloud.sync", "at 2026-02-20T00:00:00Z"] || bold.contains("cloud.sync"))
        #expect(bold.filter { ["pro", "export.pdf", "cloud.sync"].contains($0) } == ["pro", "export.pdf", "cloud.sync"])
        // A lane per source with something to show, in the order of the feature's sources.
        let lanes = tree.all("text").filter { $0.number("x") == TimelineSVG.labelX + 12 }.map(\.text)
        #expect(
            lanes == [
                "com.example.diagrams.trial", "com.example.diagrams.daypass", "com.example.diagrams.trial",
                "com.example.diagrams.sync.monthly",
            ])
        #expect(tree.texts.filter { $0 == "off" }.count == 3)

        let rects = tree.all("rect")
        let grace = try #require(
            rects.first { $0.title == "com.example.diagrams.sync.monthly: grace period [2026-02-10T12:00:00Z, 2026-02-17T00:00:00Z)" })
        #expect(grace.attributes["fill"]?.hasPrefix("url(#grace-") == true)
        let retry = try #require(
            rects.first { $0.title?.hasPrefix("com.example.diagrams.sync.monthly: billing retry since 2026-02-17T00:00:00Z, no access") == true })
        #expect(retry.attributes["fill"]?.hasPrefix("url(#retry-") == true)
        #expect(retry.attributes["stroke-dasharray"] == "3 2")
        let paid = try #require(rects.first { $0.title == "com.example.diagrams.sync.monthly: covered [2026-01-03T12:00:00Z, 2026-02-10T12:00:00Z)" })
        #expect(paid.attributes["fill"] == TimelineSVG.palette[2])

        // The line at the instant, and the bars end where they should against it: billing retry
        // reaches it, grace ends where billing retry begins.
        let at = try #require(tree.all("line").first { $0.title == "at 2026-02-20T00:00:00Z" })
        let atX = try #require(at.number("x1"))
        #expect(at.attributes["stroke"] == TimelineSVG.atColor)
        func end(_ rect: SVGTree.Element) -> Double { rect.number("x")! + rect.number("width")! }
        #expect(abs(end(retry) - atX) < 0.2)
        #expect(abs(end(grace) - retry.number("x")!) < 0.2)
        #expect(abs(end(paid) - grace.number("x")!) < 0.2)

        // A mark per purchase in each lane of its product, left to right in time.
        let bought = tree.all("circle").filter { $0.title?.hasPrefix("bought ") == true }
        #expect(bought.count == 6)
        #expect(bought.allSatisfy { $0.attributes["fill"] == TimelineSVG.ink })
        #expect(bought.filter { $0.title!.hasPrefix("bought 2026-01-01T09:00:00Z: transaction 1001 in receipt 0: counts") }.count == 2)
        let order = ["2001", "2002"].map { id in bought.first { $0.title!.contains("transaction \(id) ") }!.number("cx")! }
        #expect(order[0] < order[1] && order[1] < grace.number("x")!)
        let passes = ["4001", "4002"].map { id in bought.first { $0.title!.contains("transaction \(id) ") }!.number("cx")! }
        #expect(passes[0] < passes[1])
        // The axis: dates left to right.
        let ticks = tree.all("text").filter { $0.attributes["font-size"] == "10" && $0.text.count == 10 }
        #expect(ticks.count >= 4)
        #expect(ticks.map(\.text) == ticks.map(\.text).sorted())
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0.number("x")! < $1.number("x")! })
        // The legend names each source with its color, and the kinds of bars and marks.
        let legend = Array(tree.texts.drop { $0 != "legend" }.dropFirst())
        #expect(
            legend == [
                "com.example.diagrams.trial", "com.example.diagrams.daypass", "com.example.diagrams.sync.monthly",
                "grace period (access while billing is retried)", "billing retry (no access)", "purchase that counts",
                "purchase that does not count", "refund or revocation", "later-signed snapshot of a transaction",
                "renewal entry signed", "the instant explained",
            ])
        let swatches = rects.filter { $0.number("width") == 16 }.map { $0.attributes["fill"] ?? "" }
        #expect(Array(swatches.prefix(3)) == Array(TimelineSVG.palette.prefix(3)))
    }

    @Test("refunds, later-signed snapshots and renewal entries are marked where they happened")
    func snapshotsAndRefunds() throws {
        let first = ParsedReceipt(
            Fixtures.receipt(
                """
                { "app": "com.example.diagrams", "transactions": [
                  { "productId": "com.example.diagrams.daypass", "transactionId": "4001", "purchaseDate": "2026-01-14T18:00:00Z",
                    "signedDate": "2026-01-14T18:00:00Z" },
                  { "productId": "com.example.diagrams.sync.monthly", "transactionId": "2001", "originalTransactionId": "2001",
                    "purchaseDate": "2026-01-03T12:00:00Z", "expiresDate": "2026-02-03T12:00:00Z" } ],
                  "renewals": [ { "productId": "com.example.diagrams.sync.monthly", "originalTransactionId": "2001", "willRenew": false,
                                  "signedDate": "2026-01-09T00:00:00Z" } ] }
                """))
        let refunded = ParsedReceipt(
            Fixtures.receipt(
                """
                { "app": "com.example.diagrams", "transactions": [
                  { "productId": "com.example.diagrams.daypass", "transactionId": "4001", "purchaseDate": "2026-01-14T18:00:00Z",
                    "signedDate": "2026-01-14T20:00:00Z", "cancellationDate": "2026-01-14T19:30:00Z" } ] }
                """))
        let tree = try Self.checkSafe(Self.explain([first, refunded], at: "2026-01-15T00:00:00Z").svg)
        let hollow = tree.all("circle").filter {
            $0.title?.hasPrefix("bought 2026-01-14T18:00:00Z: transaction 4001 in receipt 1: cancelled") == true
        }
        #expect(hollow.count == 1)
        #expect(hollow.first?.attributes["fill"] == "#ffffff")
        let paths = tree.all("path")
        let refund = try #require(paths.first { $0.title?.hasPrefix("cancelled 2026-01-14T19:30:00Z: transaction 4001 in receipt 1") == true })
        #expect(refund.attributes["stroke"] == TimelineSVG.atColor)
        let snapshot = try #require(
            paths.first { $0.title?.hasPrefix("snapshot signed 2026-01-14T20:00:00Z: transaction 4001 in receipt 1") == true })
        // The earlier snapshot, superseded, is not a purchase of its own.
        let superseded = tree.all("circle").filter { $0.title?.contains("receipt 0: an earlier snapshot") == true }
        #expect(superseded.isEmpty)
        let renewal = try #require(
            paths.first { $0.title?.hasPrefix("renewal entry of chain 2001 in receipt 0, signed 2026-01-09T00:00:00Z") == true })
        #expect(renewal.attributes["fill"] == "#ffffff")
        // In time order: purchase, refund, snapshot.
        func x(_ path: SVGTree.Element) -> Double { Double(path.attributes["d"]!.dropFirst().split(separator: " ")[0])! }
        #expect(hollow[0].number("cx")! < x(refund) + 4 && x(refund) + 4 < x(snapshot))
    }

    /// A receipt whose ids say things a picture must show as text, never run.
    static let hostile = "x<script>alert(1)</script>&\"'\u{1}\u{202E}\u{FFFE}\u{7}]]><!--"

    @Test("names from receipts and catalogs are escaped: hostile ids stay text, hidden characters become visible")
    func hostileNames() throws {
        let json = try JSONSerialization.data(withJSONObject: [
            "app": Diagrams.app,
            "transactions": [["productId": Diagrams.dayPass, "transactionId": "t" + Self.hostile, "purchaseDate": "2026-01-14T18:00:00Z"]],
            "grants": [["id": "g" + Self.hostile, "features": ["pro"], "start": "2026-01-01T00:00:00Z", "end": "2026-01-20T00:00:00Z"]],
        ])
        let other = try JSONSerialization.data(withJSONObject: ["app": "com.other" + Self.hostile, "environment": "sandbox", "transactions": []])
        let receipts = [try ReceiptDecoder.decode(json), try ReceiptDecoder.decode(other)]
        let explanation = try Fixtures.examples.explain(
            app: Diagrams.app, receipts: receipts, at: Fixtures.instant("2026-01-15T00:00:00Z"),
            options: EvaluationOptions(environments: [.production]))
        let svg = explanation.svg
        let tree = try Self.checkSafe(svg)
        #expect(tree.all("script").isEmpty)
        for hidden in ["\u{1}", "\u{7}", "\u{202E}", "\u{FFFE}"] { #expect(!svg.contains(hidden)) }
        // As text, visible: the grant's lane (its end kept), its tooltip, the ignored receipt's note.
        #expect(tree.elements.contains { $0.title?.contains("grant:gx<script>alert(1)</script>&\"'\\u{1}\\u{202E}\\u{FFFE}\\u{7}]]><!--") == true })
        #expect(tree.texts.contains { $0.hasPrefix("…") && $0.hasSuffix("\\u{7}]]><!--") })
        #expect(tree.texts.contains { $0.hasPrefix("receipt 1 (com.otherx<script>alert(1)</script>&\"'\\u{1}\\u{202E}") })
        #expect(tree.elements.contains { $0.title?.contains("transaction tx<script>alert(1)</script>") == true })

        // An explanation built in code may hold any app and feature id.
        var made = explanation
        made.app = "com.app" + Self.hostile
        made.features[0].id = "f" + Self.hostile
        let drawn = try Self.checkSafe(made.svg)
        #expect(
            drawn.all("title").first?.text
                == "entitle: com.appx<script>alert(1)</script>&\"'\\u{1}\\u{202E}\\u{FFFE}\\u{7}]]><!-- at 2026-01-15T00:00:00Z")
        #expect(drawn.texts.contains { $0.hasSuffix("]]><!--") && $0.hasPrefix("…") })
    }

    @Test("a huge explanation draws a bounded picture and says what it left out: rows, lanes, bars and marks")
    func bounded() throws {
        let at = Fixtures.instant("2026-06-01T00:00:00Z")
        let always = ExplainedSpan(start: Instant.earliest, end: nil, grace: false)
        // Many features, each with many sources: at most so many rows and lanes.
        let sources = (0..<40).map { index in
            SourceExplanation(
                kind: .grant, id: "grant:\(index)", covers: true, state: "counted", until: nil, ended: nil, span: always,
                reason: String(repeating: "why ", count: 1_000))
        }
        let wide = Explanation(
            app: "com.example.big", at: at,
            features: (0..<300).map { FeatureExplanation(id: "feature\($0)", enabled: true, until: nil, decidedBy: "grant:0", sources: sources) },
            products: [], offers: [], balances: [], ignoredReceipts: [])
        let wideTree = try Self.checkSafe(wide.svg)
        #expect(
            wideTree.all("text").filter { $0.attributes["font-weight"] == "bold" && $0.text.hasPrefix("feature") }.count == TimelineSVG.maxFeatures)
        #expect(wideTree.texts.filter { $0 == "24 more sources not drawn" }.count == TimelineSVG.maxFeatures)
        #expect(wideTree.texts.contains("220 more features not drawn: draw one with --feature ID"))
        #expect(wideTree.all("rect").filter { $0.title != nil }.allSatisfy { $0.title!.unicodeScalars.count <= 300 })
        #expect(wide.svg.utf8.count < 3_000_000, "\(wide.svg.utf8.count) bytes")

        // A product with 20,000 transactions: the marks stop at the limit, and so do the rows.
        let transactions = (0..<20_000).map { index in
            TransactionExplanation(
                transactionId: "t\(index)", receipt: 0,
                purchaseDate: Instant(millisecondsSince1970: at.millisecondsSince1970 - Int64(index) * 3_600_000),
                expiresDate: nil, cancellationDate: nil, signedDate: nil, counted: true, exclusion: nil, covers: nil,
                reason: String(repeating: "long reason ", count: 200))
        }
        let product = ProductExplanation(
            id: "p", type: .nonRenewingSubscription, state: .active, until: nil, startsAt: nil, willRenew: nil,
            renewsTo: nil, commitment: nil, billingRetrySince: nil, reason: "active",
            coverage: [ExplainedSpan(start: Instant(millisecondsSince1970: 0), end: nil, grace: false)],
            transactions: transactions, renewals: [])
        let source = SourceExplanation(kind: .product, id: "p", covers: true, state: "active", until: nil, ended: nil, span: nil, reason: "active")
        let deep = Explanation(
            app: "com.example.big", at: at,
            features: (0..<3).map {
                FeatureExplanation(id: "feature\($0)", enabled: true, until: nil, decidedBy: "p", sources: [source] + sources.prefix(2))
            },
            products: [product], offers: [], balances: [], ignoredReceipts: [])
        let svg = deep.svg
        let tree = try Self.checkSafe(svg)
        // One bar and the marks make the limit; the legend has two circles of its own.
        #expect(tree.all("circle").filter { $0.title != nil }.count == TimelineSVG.maxShapes - 1 + 2)
        #expect(tree.texts.contains("drawing stopped after 4000 bars and marks: draw less with --feature ID or --product ID"))
        #expect(tree.texts.contains("2 more sources not drawn"))
        #expect(tree.texts.contains("2 more features not drawn: draw one with --feature ID"))
        #expect(!tree.texts.contains("no source ever covered it"))
        #expect(tree.all("circle").allSatisfy { ($0.title?.unicodeScalars.count ?? 0) <= 300 })
        #expect(svg.utf8.count < 3_000_000, "\(svg.utf8.count) bytes")
    }

    @Test("entitle explain --format svg: the whole timeline, one feature, one product; an offer has no picture")
    func command() throws {
        func run(_ extra: [String]) -> CommandOutput {
            EntitleCommand.run(
                [
                    "explain", "--catalog", CLITests.products, "--receipt", CLITests.receipt("diagrams-trial.json"),
                    "--at", "2026-01-15T09:00:00Z", "--format", "svg",
                ] + extra, environment: CLITests.environment())
        }
        let whole = run([])
        #expect(whole.exitCode == 0)
        #expect(whole.standardOutput.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
        let explanation = Self.explain([Self.trial], at: "2026-01-15T09:00:00Z")
        #expect(whole.standardOutput == explanation.svg)

        let feature = try Self.checkSafe(run(["--feature", "export.pdf"]).standardOutput)
        let rows = feature.all("text").filter { $0.attributes["font-weight"] == "bold" }.map(\.text)
        #expect(rows.contains("export.pdf") && !rows.contains("pro") && !rows.contains("cloud.sync"))

        let product = try Self.checkSafe(run(["--product", Diagrams.dayPass]).standardOutput)
        #expect(product.texts.filter { $0.hasPrefix("com.example.diagrams.") } == [Diagrams.dayPass, Diagrams.dayPass])
        let productRows = product.all("text").filter { $0.attributes["font-weight"] == "bold" }.map(\.text)
        #expect(productRows.contains("pro") && !productRows.contains("cloud.sync"))

        let offer = run(["--offer", Diagrams.pro])
        #expect(offer.exitCode == 2)
        #expect(offer.standardError.hasPrefix("entitle explain: `--format svg` draws features and products, not an offer"))
        let unknown = run(["--feature", "exprot.pdf"])
        #expect(unknown.exitCode == 2)
        #expect(unknown.standardError.contains("has no feature `exprot.pdf`\n  help: did you mean `export.pdf`?"))
    }

    @Test("the picture in the manual is what explain draws now (ENTITLE_RECORD=1 redraws it)")
    func manualPicture() {
        let explanation = Self.explain([Self.trial], at: "2026-02-20T00:00:00Z")
        Snapshot.expect(explanation.svg, matches: "Sources/Entitle/Entitle.docc/timeline-diagrams-trial.svg")
        #expect(DocumentationTests.article("CommandLine").contains("](timeline-diagrams-trial.svg)"))
    }

    @Test("the time axis: round ticks for the range shown, weeks on Mondays, everything within the plot")
    func timeScale() {
        func scale(_ from: String, _ to: String) -> TimeScale {
            TimeScale(from: Fixtures.instant(from).millisecondsSince1970, to: Fixtures.instant(to).millisecondsSince1970, left: 100, right: 700)
        }
        let weeks = scale("2026-01-01T00:00:00Z", "2026-02-15T00:00:00Z").ticks()
        #expect(weeks.map(\.label) == ["2026-01-05", "2026-01-12", "2026-01-19", "2026-01-26", "2026-02-02", "2026-02-09", "2026-02-16"])
        let years = scale("2019-05-02T17:20:00Z", "2026-03-01T00:00:00Z").ticks()
        #expect(years.map(\.label) == ["2020", "2021", "2022", "2023", "2024", "2025", "2026"])
        let months = scale("2026-01-01T00:00:00Z", "2026-09-10T00:00:00Z").ticks()
        #expect(months.map(\.label) == ["2026-01", "2026-03", "2026-05", "2026-07", "2026-09"])
        let hours = scale("2026-01-15T09:00:00Z", "2026-01-15T09:00:00Z").ticks()
        #expect(hours.map(\.label) == ["01-15 00:00", "01-15 06:00", "01-15 12:00", "01-15 18:00"])
        for ticks in [weeks, years, months, hours] {
            #expect(ticks.count <= 8)
            #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0.x < $1.x })
            #expect(ticks.allSatisfy { $0.x >= 100 && $0.x <= 700 })
        }
        // Across the whole range RFC 3339 can write: a few ticks, nothing outside the plot.
        let all = TimeScale(from: Instant.earliest.millisecondsSince1970, to: Instant.latest.millisecondsSince1970, left: 0, right: 10)
        #expect(!all.ticks().isEmpty && all.ticks().count <= 8)
        #expect(all.x(Int64.min) == 0 && all.x(Int64.max) == 10)
    }
}
