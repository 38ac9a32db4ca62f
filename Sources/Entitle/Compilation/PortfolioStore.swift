import Synchronization

/// Holds the portfolio a service evaluates with, and replaces it only with one that compiled.
///
/// A service reloads catalogs when they change; a bad edit must not take it down. `reload` compiles
/// the new catalogs and swaps them in only when there is no error, returning the diagnostics
/// either way, so the service keeps answering with its last good catalogs.
///
///     let store = PortfolioStore()
///     let compilation = store.reload(path: "products")        // at startup and on change
///     for diagnostic in compilation.diagnostics { log(diagnostic) }
///     guard let portfolio = store.portfolio else { ... }      // once per request
///     let result = try portfolio.evaluate(app: app, receipts: receipts, at: now)
///
/// To say which catalogs gave an answer, read ``loaded`` once per request: the portfolio with
/// its ``Loaded/generation`` (1 for the first portfolio installed, one more for each change) and
/// its ``Portfolio/contentHash``, and log them with the answer.
///
/// Reading ``portfolio`` takes a short lock; evaluation with the portfolio it returns takes none.
public final class PortfolioStore: Sendable {
    private let current: Mutex<Loaded?>

    /// A portfolio installed in the store, with which one it is.
    public struct Loaded: Sendable {
        /// The portfolio.
        public let portfolio: Portfolio
        /// 1 for the first portfolio installed, one more each time a reload changes the catalogs.
        public let generation: Int
        /// The portfolio's ``Portfolio/contentHash``.
        public var contentHash: String { portfolio.contentHash }
    }

    /// Creates a store, optionally with a portfolio already compiled (generation 1).
    public init(_ portfolio: Portfolio? = nil) {
        current = Mutex(portfolio.map { Loaded(portfolio: $0, generation: 1) })
    }

    /// The last portfolio that compiled, or `nil` if none has yet.
    public var portfolio: Portfolio? {
        current.withLock { $0?.portfolio }
    }

    /// The last portfolio that compiled with its generation, read together; `nil` if none has yet.
    public var loaded: Loaded? {
        current.withLock { $0 }
    }

    /// Compiles catalogs and, when they have no error, makes them the current portfolio.
    ///
    /// - Returns: the compilation, whose diagnostics say why a bad reload was refused.
    @discardableResult
    public func reload(_ sources: [CatalogSource]) -> Compilation {
        install(Portfolio.compile(sources))
    }

    /// Compiles the catalog file or directory at `path` and, when it has no error, makes it current.
    @discardableResult
    public func reload(path: String) -> Compilation {
        install(Portfolio.load(path: path))
    }

    /// Installs a compiled portfolio. Catalogs with the same content as the current ones change
    /// nothing: the generation stays, so a reload on every file event does not churn it.
    private func install(_ compilation: Compilation) -> Compilation {
        if let portfolio = compilation.portfolio {
            current.withLock { current in
                guard current?.contentHash != portfolio.contentHash else { return }
                current = Loaded(portfolio: portfolio, generation: (current?.generation ?? 0) + 1)
            }
        }
        return compilation
    }
}
