import Foundation

/// The compiled catalogs of one or more apps: what a service loads once and evaluates receipts
/// against.
///
/// Compile from files or bytes; a portfolio exists only when every catalog in it is free of
/// errors, so a service that fails to compile a new version simply keeps the one it has.
///
///     let compilation = Portfolio.load(path: "products")
///     for diagnostic in compilation.diagnostics { print(diagnostic) }
///     let portfolio = try compilation.get()
///     let result = try portfolio.evaluate(app: "com.example.diagrams", receipts: receipts, at: now)
public struct Portfolio: Sendable {
    /// The catalogs, one per app, in the order their sources were given.
    public let catalogs: [CompiledCatalog]
    private let byApp: [String: CompiledCatalog]
    /// What the portfolio was compiled from, named: `sha256:` and the SHA-256 of the catalogs'
    /// bytes, in an order that does not depend on the order or the names of the files. Two
    /// processes with the same catalogs report the same hash; a service logs it with each answer
    /// to say which catalogs gave it.
    public let contentHash: String

    /// The catalogs by app, for evaluation across apps.
    var catalogsByApp: [String: CompiledCatalog] { byApp }

    init(catalogs: [CompiledCatalog], contentHash: String) {
        self.catalogs = catalogs
        self.byApp = Dictionary(catalogs.map { ($0.app, $0) }, uniquingKeysWith: { first, _ in first })
        self.contentHash = contentHash
    }

    /// The hash of each source's bytes, those sorted, hashed again.
    static func contentHash(of sources: [CatalogSource]) -> String {
        let digests = sources.map { source in
            var hash = ContentHash()
            hash.update(source.data)
            return hash.finish()
        }.sorted()
        var whole = ContentHash()
        for digest in digests { whole.field(Array(digest.utf8)) }
        return "sha256:" + whole.finish()
    }

    /// The catalog of an app, or `nil` when the portfolio has none for it.
    public func catalog(for app: String) -> CompiledCatalog? { byApp[app] }

    /// The bundle ids of the apps in the portfolio.
    public var apps: [String] { catalogs.map(\.app) }

    /// Checks and compiles catalogs given as bytes.
    ///
    /// - Parameter sources: each catalog's name (used in diagnostics) and JSON bytes.
    /// - Returns: the portfolio when there is no error, and every diagnostic.
    public static func compile(_ sources: [CatalogSource]) -> Compilation {
        var diagnostics: [Diagnostic] = []
        var definitions: [CatalogDefinition] = []
        var texts: [String: Data] = [:]
        var failedFiles: Set<String> = []
        // A catalog with errors whose app could not be read might be any app's.
        var unidentified = false
        for source in sources {
            let (definition, found) = CatalogChecker.check(file: source.name, data: source.data)
            diagnostics += found
            if found.contains(where: \.isError) {
                failedFiles.insert(source.name)
                if definition?.app == nil { unidentified = true }
            }
            if let definition {
                definitions.append(definition)
                texts[source.name] = source.data
            }
        }
        // Across catalogs, also those with errors: every problem in one pass.
        let crossFile = PortfolioChecker.check(definitions, texts: texts, someAppUnknown: unidentified)
        diagnostics += crossFile
        for diagnostic in crossFile where diagnostic.isError {
            if let file = diagnostic.location?.file { failedFiles.insert(file) }
        }
        if sources.isEmpty {
            diagnostics.append(Diagnostic(severity: .error, code: .unreadableFile, message: "no catalogs given"))
        }
        // Each catalog without an error of its own compiles, whatever the others hold.
        let compiled = definitions.filter { !failedFiles.contains($0.file) && $0.app != nil }.map(CatalogCompiler.compile)
        let failedApps = Set(definitions.filter { failedFiles.contains($0.file) }.compactMap(\.app?.value))
        let complete =
            failedFiles.isEmpty && !sources.isEmpty && compiled.count == definitions.count
            && definitions.count == sources.count
        let hash = Self.contentHash(of: sources)
        return Compilation(
            portfolio: complete ? Portfolio(catalogs: compiled, contentHash: hash) : nil, diagnostics: diagnostics,
            compiled: compiled, failedApps: failedApps, unidentifiedFailure: unidentified, contentHash: hash)
    }

    /// Checks and compiles the catalog at `path`, or every `*.json` file directly inside the
    /// directory at `path` (not its subdirectories), as one portfolio.
    public static func load(path: String) -> Compilation {
        switch CatalogFiles.sources(at: path) {
        case .success(let sources): compile(sources)
        case .failure(let diagnostic): Compilation(portfolio: nil, diagnostics: [diagnostic])
        }
    }
}

/// A catalog's name (for diagnostics) and JSON bytes.
public struct CatalogSource: Sendable {
    /// The name diagnostics use for the catalog, usually its path.
    public var name: String
    /// The catalog's JSON bytes.
    public var data: Data

    /// Creates a source from a name and JSON bytes.
    public init(name: String, data: Data) {
        self.name = name
        self.data = data
    }
}

/// The outcome of compiling catalogs: a portfolio when there were no errors, and every diagnostic.
public struct Compilation: Sendable {
    /// The compiled portfolio, or `nil` when any diagnostic is an error: a service keeps its last
    /// good portfolio rather than run with part of a new one (see ``PortfolioStore``).
    public let portfolio: Portfolio?
    /// Every error, warning and note, in file order.
    public let diagnostics: [Diagnostic]
    /// Each catalog that compiled without an error of its own, even when others did not.
    public let compiledCatalogs: [CompiledCatalog]
    /// Apps whose catalog has errors.
    let failedApps: Set<String>
    /// Whether a catalog with errors could not even say which app it is for.
    let unidentifiedFailure: Bool
    /// The ``Portfolio/contentHash`` of every source read.
    let contentHash: String

    init(
        portfolio: Portfolio?, diagnostics: [Diagnostic], compiled: [CompiledCatalog] = [], failedApps: Set<String> = [],
        unidentifiedFailure: Bool = false, contentHash: String = Portfolio.contentHash(of: [])
    ) {
        self.contentHash = contentHash
        self.portfolio = portfolio
        self.diagnostics = diagnostics
        self.compiledCatalogs = portfolio?.catalogs ?? compiled
        self.failedApps = failedApps
        self.unidentifiedFailure = unidentifiedFailure
    }

    /// The errors among the diagnostics.
    public var errors: [Diagnostic] { diagnostics.filter(\.isError) }

    /// The portfolio, or a thrown ``CompilationError`` carrying the diagnostics.
    public func get() throws(CompilationError) -> Portfolio {
        guard let portfolio else { throw CompilationError(diagnostics: diagnostics) }
        return portfolio
    }

    /// A portfolio good enough to evaluate `app` with: its catalog compiled, and so did the
    /// catalog of every app its upgrades require that the sources hold, even if other catalogs
    /// of the sources have errors. `nil` when the app's answer could depend on a broken catalog:
    /// one of a required app, or one whose app could not be read (it may be a required app's),
    /// when a required app has no compiled catalog.
    ///
    /// For tools that inspect one app in a directory being edited (`entitle check`); a service
    /// should use the all-or-nothing ``portfolio``.
    ///
    /// - Parameters:
    ///   - app: the bundle id of the app to evaluate.
    ///   - missingSources: whether some catalog meant to be among the sources could not be read at
    ///     all (a path that does not exist): it is treated like a catalog whose app is unknown.
    public func portfolio(evaluating app: String, missingSources: Bool = false) -> Portfolio? {
        if let portfolio, !missingSources { return portfolio.catalog(for: app) == nil ? nil : portfolio }
        guard let catalog = compiledCatalogs.first(where: { $0.app == app }), !failedApps.contains(app) else { return nil }
        let compiledApps = Set(compiledCatalogs.map(\.app))
        let unknownFailure = unidentifiedFailure || missingSources
        guard catalog.requiredApps.allSatisfy({ !failedApps.contains($0) && (compiledApps.contains($0) || !unknownFailure) })
        else { return nil }
        return portfolio ?? Portfolio(catalogs: compiledCatalogs, contentHash: contentHash)
    }
}

/// Catalogs that did not compile.
public struct CompilationError: Error, Sendable, CustomStringConvertible {
    /// Every diagnostic, errors and warnings.
    public let diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
