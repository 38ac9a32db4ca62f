import Foundation

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
/// Reading ``portfolio`` takes a short lock; evaluation with the portfolio it returns takes none.
public final class PortfolioStore: @unchecked Sendable {
    // `current` is only read or written under `lock`; that is what makes the class Sendable.
    private let lock = NSLock()
    private var current: Portfolio?

    /// Creates a store, optionally with a portfolio already compiled.
    public init(_ portfolio: Portfolio? = nil) {
        current = portfolio
    }

    /// The last portfolio that compiled, or `nil` if none has yet.
    public var portfolio: Portfolio? {
        lock.withLock { current }
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

    private func install(_ compilation: Compilation) -> Compilation {
        if let portfolio = compilation.portfolio {
            lock.withLock { current = portfolio }
        }
        return compilation
    }
}
