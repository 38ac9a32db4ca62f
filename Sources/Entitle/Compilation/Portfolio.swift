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

    init(catalogs: [CompiledCatalog]) {
        self.catalogs = catalogs
        self.byApp = Dictionary(catalogs.map { ($0.app, $0) }, uniquingKeysWith: { first, _ in first })
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
        var failed = false
        for source in sources {
            let (definition, found) = CatalogChecker.check(file: source.name, data: source.data)
            diagnostics += found
            if let definition {
                definitions.append(definition)
                texts[source.name] = source.data
            } else {
                failed = true
            }
        }
        let crossFile = PortfolioChecker.check(definitions, texts: texts)
        diagnostics += crossFile
        if sources.isEmpty {
            diagnostics.append(Diagnostic(severity: .error, code: .unreadableFile, message: "no catalogs given"))
            failed = true
        }
        guard !failed, !crossFile.contains(where: \.isError) else {
            return Compilation(portfolio: nil, diagnostics: diagnostics)
        }
        return Compilation(portfolio: Portfolio(catalogs: definitions.map(CatalogCompiler.compile)), diagnostics: diagnostics)
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
    public var name: String
    public var data: Data

    public init(name: String, data: Data) {
        self.name = name
        self.data = data
    }
}

/// The outcome of compiling catalogs: a portfolio when there were no errors, and every diagnostic.
public struct Compilation: Sendable {
    /// The compiled portfolio, or `nil` when any diagnostic is an error.
    public let portfolio: Portfolio?
    /// Every error and warning, in file order.
    public let diagnostics: [Diagnostic]

    /// The errors among the diagnostics.
    public var errors: [Diagnostic] { diagnostics.filter(\.isError) }

    /// The portfolio, or a thrown ``CompilationError`` carrying the diagnostics.
    public func get() throws(CompilationError) -> Portfolio {
        guard let portfolio else { throw CompilationError(diagnostics: diagnostics) }
        return portfolio
    }
}

/// Catalogs that did not compile.
public struct CompilationError: Error, Sendable, CustomStringConvertible {
    /// Every diagnostic, errors and warnings.
    public let diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
