import Foundation

/// Checks one catalog file: reads its JSON, checks shape and every rule, and gathers all
/// diagnostics in one pass.
///
/// Shape problems (unknown keys, wrong types, bad durations) and rule problems (undeclared
/// features, broken trials and upgrades, missing legal text) are all reported, and a value that
/// is broken does not stop the checks that do not depend on it: a product whose `type` is
/// misspelt still has its grants checked. What only follows from an error already reported is not
/// reported again (a trial is not blamed for granting what its paid product's misspelt grant
/// meant). A catalog with any error is not compiled. Rules that need another app's catalog are
/// checked by ``PortfolioChecker``.
///
/// The engine's rules are here: `CatalogChecker+Products` (shape of a product), `+Grants`
/// (features, currencies, legal text, and the loop that runs each family's rules across
/// products), `+Values` (reading values). Each family's rules are in its folder under
/// `Families/` (`CatalogChecker+Trials`, `+Upgrades`, `+Groups`, `+Offers`, `+Grandfathering`,
/// `+Items`, `+Retention`, `+Refunds`, `+Stores`).
package struct CatalogChecker {
    let file: String
    let data: Data
    /// Built on the first diagnostic: most catalogs have none.
    lazy var lines = LineTable(data)
    private(set) var diagnostics: [Diagnostic] = []
    /// Diagnostics past ``CatalogLimits/maxDiagnosticsPerFile``, counted, not kept.
    private var unshown = (errors: 0, warnings: 0)
    /// Edit-distance work left for "did you mean": a catalog with thousands of misspellings
    /// gets suggestions until this runs out, then plain help, so checking stays linear.
    var suggestions = Suggestion.Budget.perFile

    /// What is broken at the top level, so the rules that depend on it stay quiet.
    struct Broken {
        /// `features` is missing or not an object: every grant would look undeclared.
        var features = false
        /// `currencies` is not an object.
        var currencies = false
        /// `legal` is not an object.
        var legal = false
        /// Declared ids that are not valid ids (reported where declared).
        var featureIds: Set<String> = []
        var currencyIds: Set<String> = []
        /// Limit ids whose declaration could not be read: uses of them are not undeclared.
        var limitIds: Set<String> = []
        /// Types whose default legal text is there but not usable.
        var legalTypes: Set<ProductType> = []
    }
    var broken = Broken()
    /// Allowed keys that the last object read (``object(_:_:path:type:required:)``)
    /// had misspelt or in the wrong place: their absence is that key's error, not one of its own.
    var misspeltKeys: Set<String> = []

    private init(file: String, data: Data) {
        self.file = file
        self.data = data
    }

    /// Top-level keys of normalized receipts and of Apple's formats, none of which a catalog has.
    static let receiptKeys: Set<String> = [
        "transactions", "renewals", "consumptions", "receipt", "latest_receipt_info", "pending_renewal_info",
        "signedTransactions", "signedPayload", "signedTransactionInfo", "transactionId", "originalTransactionId", "bundleId",
    ]

    /// Checks a catalog's bytes.
    ///
    /// - Returns: what could be read of the catalog (`nil` only when it is not a JSON object), and
    ///   every diagnostic (warnings too), in file order. The catalog may be compiled only when no
    ///   diagnostic is an error.
    static func check(file: String, data: Data) -> (CatalogDefinition?, [Diagnostic]) {
        var checker = CatalogChecker(file: file, data: data)
        guard
            let document = JSONDocument.parse(
                data, limits: .catalog, lines: checker.lines, report: { checker.report($0, $1, at: $2, path: "", help: $3) })
        else { return (nil, checker.diagnostics) }
        var definition = checker.checkCatalog(document.root)
        if definition != nil { checker.checkRules(&definition!) }
        // In file order, as compilers print them; the sort is stable for one location.
        let ordered = checker.diagnostics.enumerated().sorted { a, b in
            let left = a.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            let right = b.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            return left != right ? left < right : a.offset < b.offset
        }.map(\.element)
        return (definition, ordered + checker.unshownSummary)
    }

    /// Whether the file has all the diagnostics it shows: a caller reporting many at once may then
    /// count them without composing their messages (``countUnshownError()``).
    var isFull: Bool { diagnostics.count >= CatalogLimits.maxDiagnosticsPerFile }

    /// Counts an error past the limit without composing it.
    mutating func countUnshownError() { unshown.errors += 1 }

    /// One diagnostic counting those past the limit (an error when any of them is one, so a
    /// catalog never compiles because its errors were not shown).
    private var unshownSummary: [Diagnostic] {
        guard unshown.errors + unshown.warnings > 0 else { return [] }
        return [
            Diagnostic(
                severity: unshown.errors > 0 ? .error : .warning, code: .limitExceeded,
                message:
                    "\(unshown.errors) more error\(unshown.errors == 1 ? "" : "s") and \(unshown.warnings) more warning\(unshown.warnings == 1 ? "" : "s") not shown",
                location: SourceLocation(file: file, line: 1, column: 1), path: "",
                help: "a file shows its first \(CatalogLimits.maxDiagnosticsPerFile) diagnostics; fix those and check again")
        ]
    }

    // MARK: Top level

    private mutating func checkCatalog(_ root: JSONNode) -> CatalogDefinition? {
        // A receipt saved among the catalogs: say so, rather than list the keys it lacks.
        if case .object(let raw) = root.value,
            !raw.contains(where: { $0.key == CatalogKey.products.name || $0.key == CatalogKey.features.name }),
            let key = raw.first(where: { Self.receiptKeys.contains($0.key) })
        {
            report(
                .notACatalog, "this looks like a receipt (it has `\(key.key)`), not a catalog", at: root.offset, path: "",
                help:
                    "check a receipt with `entitle check --receipt`; in a catalog directory every *.json directly inside is read as a catalog, so keep receipts in a subfolder such as receipts/"
            )
            return nil
        }
        guard let members = object(root, .catalog, path: "") else { return nil }

        if let schema = members[CatalogKey.schema.name] { _ = scalar(schema, .schema, in: .catalog, path: CatalogKey.schema.name) }
        let app = members[CatalogKey.app.name].flatMap { scalar($0, .app, in: .catalog, path: CatalogKey.app.name)?.text }
        let features = members[CatalogKey.features.name].flatMap {
            declarations($0.value, path: CatalogKey.features.name, what: "feature")
        }
        broken.features = features == nil
        // `currencies` may be left out; one that is there but unreadable is broken.
        let currencyMember = members[CatalogKey.currencies.name]
        let currencies = currencyMember.flatMap { declarations($0.value, path: CatalogKey.currencies.name, what: "currency") }
        broken.currencies = currencyMember != nil && currencies == nil
        let legal = members[CatalogKey.legal.name].map { legalDefaults($0.value) } ?? [:]

        var products: [ProductDefinition] = []
        if let productsNode = members[CatalogKey.products.name]?.value {
            if let elements = listElements(
                productsNode, of: "products", limit: CatalogLimits.maxProducts, "a catalog may hold", path: CatalogKey.products.name,
                help: "App Store Connect allows \(CatalogLimits.maxProducts) in-app purchases per app")
            {
                for (index, element) in elements.enumerated() {
                    if let product = checkProduct(element, path: "\(CatalogKey.products.name)[\(index)]") {
                        products.append(product)
                    }
                }
            }
        }
        var definition = CatalogDefinition(
            file: file, app: app, features: features?.ids ?? [], featureDescriptions: features?.descriptions ?? [],
            currencies: currencies?.ids ?? [], currencyDescriptions: currencies?.descriptions ?? [],
            legal: legal, products: products)
        if let member = members[CatalogKey.grandfathered.name] { definition.grandfatherRules = grandfatherRules(member.value) }
        if let member = members[CatalogKey.stores.name] { definition.manageURLs = storeSettings(member.value) }
        if let member = members[CatalogKey.refundPreference.name] {
            definition.refundPreference = refundPolicy(member.value, path: CatalogKey.refundPreference.name)
        }
        if let member = members[CatalogKey.allowances.name] {
            definition.allowances = allowances(member.value, .freeAllowance, path: CatalogKey.allowances.name)
        }
        if let member = members[CatalogKey.limits.name] {
            let limits = limitDeclarations(member.value)
            definition.limits = limits ?? []
            definition.limitsBroken = limits == nil
        }
        return definition
    }

    /// Feature or currency declarations; `nil` when the value is not an object.
    private mutating func declarations(_ node: JSONNode, path: String, what: String) -> (ids: [Located<String>], descriptions: [String])? {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "an object of \(what) ids to descriptions", path: path)
            return nil
        }
        var ids: [Located<String>] = []
        var descriptions: [String] = []
        if members.count > CatalogLimits.maxDeclarations {
            let extra = members[CatalogLimits.maxDeclarations]
            report(
                .limitExceeded,
                "\(members.count) \(what == "feature" ? "features" : "currencies"), more than the \(CatalogLimits.maxDeclarations) a catalog may declare",
                at: extra.keyOffset, path: Self.path(path, key: extra.key))
        }
        for member in members {
            let memberPath = Self.path(path, key: member.key)
            if member.key == CatalogKey.comment.name {
                _ = string(member.value, path: memberPath)
                continue
            }
            guard validIdentifier(member.key, what: what, at: member.keyOffset, path: memberPath) else {
                if what == "feature" { broken.featureIds.insert(member.key) } else { broken.currencyIds.insert(member.key) }
                continue
            }
            guard let description = string(member.value, path: memberPath) else {
                // Declared, with a broken description: uses of the id are not undeclared.
                if what == "feature" { broken.featureIds.insert(member.key) } else { broken.currencyIds.insert(member.key) }
                continue
            }
            ids.append(Located(value: member.key, offset: member.keyOffset, path: memberPath))
            descriptions.append(description.value)
        }
        return (ids, descriptions)
    }

    private mutating func legalDefaults(_ node: JSONNode) -> [ProductType: String] {
        guard case .object(let members) = node.value else {
            wrongType(node, expected: "an object of product types to legal text", path: CatalogKey.legal.name)
            broken.legal = true
            return [:]
        }
        var legal: [ProductType: String] = [:]
        for member in members {
            let memberPath = Self.path(CatalogKey.legal.name, key: member.key)
            if member.key == CatalogKey.comment.name {
                _ = string(member.value, path: memberPath)
                continue
            }
            guard let type = ProductType(rawValue: member.key) else {
                report(
                    .unknownKey, "unknown product type `\(member.key)`", at: member.keyOffset, path: memberPath,
                    help: "product types are \(Self.list(ProductType.allCases.map(\.rawValue)))",
                    meant: Suggestion.closest(to: member.key, in: ProductType.allCases.map(\.rawValue), budget: &suggestions))
                // The text was probably meant for one of the types: do not also say they lack one.
                broken.legal = true
                continue
            }
            if let text = legalText(member.value, path: memberPath) {
                legal[type] = text
            } else {
                broken.legalTypes.insert(type)
            }
        }
        return legal
    }

    // MARK: Reporting

    mutating func wrongType(_ node: JSONNode, expected: String, path: String) {
        report(.wrongType, "expected \(expected), found \(node.kind.phrase)", at: node.offset, path: path)
    }

    /// The elements of a list of objects (`products`, `offers`, `retention`), or `nil` (reported)
    /// when the value is not an array. A list longer than `limit` is reported at its first element
    /// too many: "3 offers, more than the 2 a product may have" (`what` is `offers`, `holder`
    /// `a product may have`); the caller decides how many it reads.
    mutating func listElements(
        _ node: JSONNode, of what: String, limit: Int, _ holder: String, path: String, help: String? = nil
    ) -> [JSONNode]? {
        guard case .array(let elements) = node.value else {
            wrongType(node, expected: "an array of \(what)", path: path)
            return nil
        }
        if elements.count > limit {
            report(
                .limitExceeded, "\(elements.count) \(what), more than the \(limit) \(holder)", at: elements[limit].offset,
                path: "\(path)[\(limit)]", help: help)
        }
        return elements
    }

    /// Reports an error at `offset`; with `meant`, a "did you mean" whose help line and fix
    /// replace the key or string value at `offset` (``Diagnostic/fixes``), and `help` is the
    /// advice when there is no such guess.
    mutating func report(
        _ code: DiagnosticCode, _ message: String, at offset: Int, path: String, help: String? = nil, meant: String? = nil,
        meaning: String = ""
    ) {
        append(.error, code, message, offset, path, help, meant: meant, meaning: meaning)
    }

    mutating func warn(_ code: DiagnosticCode, _ message: String, at offset: Int, path: String, help: String? = nil, meant: String? = nil) {
        append(.warning, code, message, offset, path, help, meant: meant, meaning: "")
    }

    private mutating func append(
        _ severity: Diagnostic.Severity, _ code: DiagnosticCode, _ message: String,
        _ offset: Int, _ path: String, _ help: String?, meant: String?, meaning: String
    ) {
        guard diagnostics.count < CatalogLimits.maxDiagnosticsPerFile else {
            if severity == .error { unshown.errors += 1 } else { unshown.warnings += 1 }
            return
        }
        let (line, column) = lines.location(of: offset)
        let diagnostic = Diagnostic(
            severity: severity, code: code, message: message,
            location: SourceLocation(file: file, line: line, column: column), path: path, help: help)
        diagnostics.append(meant.map { diagnostic.suggesting($0, meaning, at: offset, in: data) } ?? diagnostic)
    }

    /// The offset just past the JSON string (a key or value) that starts at `offset`, or `nil`
    /// when none starts there or it is not closed.
    static func endOfString(in data: Data, at offset: Int) -> Int? {
        guard offset >= 0, offset < data.count, data[data.startIndex + offset] == UInt8(ascii: "\"") else { return nil }
        var index = offset + 1
        while index < data.count {
            switch data[data.startIndex + index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            case 0..<0x20: return nil
            default: index += 1
            }
        }
        return nil
    }

    /// The line of an offset, for messages that point at another place in the file.
    mutating func line(of offset: Int) -> Int {
        lines.location(of: offset).line
    }

    // MARK: Small helpers

    /// The N of a name of the form "N-day Trial" (N a positive whole number), else `nil`.
    static func trialDays(in name: String) -> Int? {
        let suffix = "-day Trial"
        guard name.hasSuffix(suffix) else { return nil }
        let digits = name.dropLast(suffix.count)
        guard !digits.isEmpty, digits.count <= 9, digits.first != "0",
            digits.allSatisfy({ $0.isASCII && $0.isNumber }), let days = Int(digits), days > 0
        else { return nil }
        return days
    }

    static func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": true
        default: false
        }
    }

    /// Whether `id` may be a declared id (feature, currency, limit); reported as a `what` id at
    /// `offset` when it may not.
    mutating func validIdentifier(_ id: String, what: String, at offset: Int, path: String) -> Bool {
        if id.utf8.count > CatalogLimits.maxIdentifierBytes {
            report(
                .limitExceeded, "\(what) id of \(id.utf8.count) bytes is longer than \(CatalogLimits.maxIdentifierBytes) bytes",
                at: offset, path: path)
            return false
        }
        guard identifierIsValid(id) else {
            report(
                .badValue, "\(what) id `\(id)` must be letters, digits, `.`, `_` or `-`, starting with a letter or digit",
                at: offset, path: path)
            return false
        }
        return true
    }

    private func identifierIsValid(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, first != ".", first != "-", first != "_" else { return false }
        return id.unicodeScalars.allSatisfy(Self.isIdentifierScalar)
    }

    /// Appends a member name to a JSON path: `a.b`, or `a["b.c"]` when the name is not a plain word.
    package static func path(_ base: String, key: String) -> String {
        let key = Diagnostic.excerpt(key)
        let plain =
            !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "$"
            }
        if plain { return base.isEmpty ? key : "\(base).\(key)" }
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\(base)[\"\(escaped)\"]"
    }

    static let listLimit = 10

    /// `a`, `b` or `c`; past ``listLimit`` items, the first ones and how many more.
    package static func list(_ items: [String], quote: Bool = true, conjunction: String = "or") -> String {
        if items.count > listLimit {
            let shown = items.prefix(listLimit - 1).map { quote ? "`\($0)`" : $0 }
            return shown.joined(separator: ", ") + " \(conjunction) \(items.count - shown.count) more"
        }
        let quoted = quote ? items.map { "`\($0)`" } : items
        switch quoted.count {
        case 0: return "nothing"
        case 1: return quoted[0]
        case 2: return "\(quoted[0]) \(conjunction) \(quoted[1])"
        default: return quoted.dropLast().joined(separator: ", ") + " \(conjunction) " + quoted.last!
        }
    }
}
