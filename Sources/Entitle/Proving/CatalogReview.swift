import Foundation

/// What a review of a portfolio found (``CatalogProof/review(_:sources:options:progress:)``, `entitle
/// validate --deep`): what no customer of up to a few transactions ever reaches, as warnings
/// located in the catalogs.
public struct CatalogReview: Sendable {
    /// One thing no searched customer reaches.
    public struct Finding: Hashable, Sendable {
        /// What a finding is about.
        @nonexhaustive
        public enum Subject: Hashable, Sendable {
            /// A declared feature.
            case feature(String)
            /// A product.
            case product(String)
            /// A grandfather rule, by its id.
            case rule(String)
            /// A win-back or promotional offer of a product.
            case offer(product: String, id: String)
        }

        /// The app whose catalog it is in.
        public var app: String
        /// What kind of finding: ``DiagnosticCode/neverOn``, ``DiagnosticCode/neverOffered``,
        /// ``DiagnosticCode/grantsAlwaysOn``, ``DiagnosticCode/trialAddsNothing``,
        /// ``DiagnosticCode/ruleNeverMatches``, ``DiagnosticCode/ruleRedundant`` or
        /// ``DiagnosticCode/offerNeverEligible``.
        public var code: DiagnosticCode
        /// What it is about.
        public var subject: Subject
        /// The diagnostic's message.
        public var message: String
        /// What it was seen as, or what to do.
        public var help: String?
    }

    /// The most transactions a searched customer had.
    public var depth: Int
    /// What was searched, over every catalog.
    public var statistics: ProofStatistics
    /// Every finding, per catalog in the portfolio's order, in catalog order.
    public var findings: [Finding]
    /// The findings as warnings, located in the catalogs' sources, with what was searched on the
    /// help line.
    public var diagnostics: [Diagnostic]

    init(depth: Int, statistics: ProofStatistics, findings: [Finding], sources: [CatalogSource], files: [String: String]) {
        self.depth = depth
        self.statistics = statistics
        self.findings = findings
        var located: [String: CatalogLocator] = [:]
        for source in sources where located[source.name] == nil { located[source.name] = CatalogLocator(source) }
        let searched = "searched every customer of up to \(depth) transaction\(depth == 1 ? "" : "s") at every boundary instant"
        diagnostics = Self.sorted(
            findings.map { finding in
                let file = files[finding.app]
                let (location, path) = file.flatMap { located[$0] }?.locate(finding.subject) ?? (nil, "")
                return Diagnostic(
                    severity: .warning, code: finding.code, message: finding.message,
                    location: location ?? file.map { SourceLocation(file: $0, line: 1, column: 1) }, path: path,
                    help: (finding.help.map { $0 + "; " } ?? "") + searched)
            })
    }

    /// Diagnostics in file order: by file, line and column (those without a location last).
    private static func sorted(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let x = a.element.location
            let y = b.element.location
            if let x, let y, (x.file, x.line, x.column) != (y.file, y.line, y.column) {
                return (x.file, x.line, x.column) < (y.file, y.line, y.column)
            }
            if (x == nil) != (y == nil) { return x != nil }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// What was searched, in one sentence: `searched every receipt of up to 2 transactions at
    /// every boundary instant: 18,240 receipts, 391,000 evaluations`.
    public var searched: String {
        "searched every receipt of up to \(depth) transaction\(depth == 1 ? "" : "s") at every boundary instant: "
            + "\(ProofReport.count(statistics.customers)) receipts, \(ProofReport.count(statistics.evaluations)) evaluations"
            + (statistics.incompleteness.map { "; " + $0 } ?? "")
    }
}

/// Where features, products, offers and grandfather rules are in one catalog's source.
private struct CatalogLocator {
    let name: String
    let lines: LineTable
    var features: [String: (offset: Int, path: String)] = [:]
    var products: [String: (offset: Int, path: String)] = [:]
    var offers: [String: (offset: Int, path: String)] = [:]
    var rules: [String: (offset: Int, path: String)] = [:]

    init(_ source: CatalogSource) {
        name = source.name
        lines = LineTable(source.data)
        guard let document = try? JSONDocument.parse(source.data, limits: .catalog), case .object(let root) = document.root.value else { return }
        func member(_ members: [JSONMember], _ key: CatalogKey) -> JSONMember? { members.first { $0.key == key.name } }
        func id(_ node: JSONNode) -> String? {
            guard case .object(let members) = node.value, case .string(let id)? = member(members, .id)?.value.value else { return nil }
            return id
        }
        if case .object(let members)? = member(root, .features)?.value.value {
            for feature in members where features[feature.key] == nil {
                features[feature.key] = (feature.keyOffset, CatalogChecker.path(CatalogKey.features.name, key: feature.key))
            }
        }
        if case .array(let elements)? = member(root, .products)?.value.value {
            for (index, element) in elements.enumerated() {
                guard let product = id(element), products[product] == nil else { continue }
                let path = "\(CatalogKey.products.name)[\(index)]"
                products[product] = (element.offset, path)
                guard case .object(let members) = element.value, case .array(let list)? = member(members, .offers)?.value.value else { continue }
                for (position, offer) in list.enumerated() {
                    if let offerId = id(offer), offers[product + "\u{0}" + offerId] == nil {
                        offers[product + "\u{0}" + offerId] = (offer.offset, CatalogChecker.path(path, key: CatalogKey.offers.name) + "[\(position)]")
                    }
                }
            }
        }
        if case .array(let elements)? = member(root, .grandfathered)?.value.value {
            for (index, element) in elements.enumerated() {
                guard let rule = id(element), rules[rule] == nil else { continue }
                rules[rule] = (element.offset, "\(CatalogKey.grandfathered.name)[\(index)]")
            }
        }
    }

    /// The location and JSON path of a finding's subject; `nil` when the source does not have it.
    func locate(_ subject: CatalogReview.Finding.Subject) -> (SourceLocation?, String)? {
        let place: (offset: Int, path: String)?
        switch subject {
        case .feature(let id): place = features[id]
        case .product(let id): place = products[id]
        case .rule(let id): place = rules[id]
        case .offer(let product, let id): place = offers[product + "\u{0}" + id]
        }
        guard let place else { return nil }
        let (line, column) = lines.location(of: place.offset)
        return (SourceLocation(file: name, line: line, column: column), place.path)
    }
}
