import Foundation

/// A receipt in either form evaluation reads: a ``Receipt`` value or a ``ParsedReceipt``.
///
/// Evaluation reads the parsed form; a `Receipt` is converted once per evaluation. A service that
/// evaluates one receipt at many instants decodes it once into a `ParsedReceipt`.
public protocol ReceiptConvertible: Sendable {
    /// The receipt as evaluation reads it.
    var parsedReceipt: ParsedReceipt { get }
}

extension Receipt: ReceiptConvertible {
    /// The receipt as evaluation reads it.
    public var parsedReceipt: ParsedReceipt { ParsedReceipt(self) }
}

extension ParsedReceipt: ReceiptConvertible {
    /// The receipt itself.
    public var parsedReceipt: ParsedReceipt { self }
}

extension Array where Element: ReceiptConvertible {
    /// The receipts as evaluation reads them, without a copy when they are parsed already.
    var parsed: [ParsedReceipt] {
        // The same type: the same array, without a dynamic cast (which would walk it).
        if Element.self == ParsedReceipt.self { return unsafeBitCast(self, to: [ParsedReceipt].self) }
        return map(\.parsedReceipt)
    }
}

extension CompiledCatalog {
    /// Evaluates receipts at an instant.
    ///
    /// Only receipts of this catalog's app feed its features, balances and products; other apps'
    /// receipts serve upgrade requirements.
    ///
    /// - Parameters:
    ///   - receipts: the customer's receipts, of this app and of others: ``Receipt`` values or
    ///     ``ParsedReceipt``s (the fast path, with no string work beyond one product lookup per
    ///     transaction). A list of both forms: map it to ``ReceiptConvertible/parsedReceipt``.
    ///   - at: the instant to evaluate at. Evaluation never reads the clock. An instant outside
    ///     years 0001-9999 is evaluated at the nearer end of them (``Instant/clampedToRange``).
    ///   - options: the environments, accounts and storefront (``EvaluationOptions``); by default
    ///     every receipt and account counts, and the storefront is unknown.
    /// - Returns: the customer's entitlements at `at`.
    public func evaluate(_ receipts: [some ReceiptConvertible], at: Instant, options: EvaluationOptions = .all) -> Entitlements {
        Evaluator.evaluate(self, receipts: receipts.parsed, at: at, options: options.evaluatorOptions())
    }

    /// Explains what a customer has at an instant and why: every feature's sources, every
    /// product's transactions and renewal entries, every offer's deciding fact.
    ///
    /// The explanation is the evaluation's own decisions, recorded as it makes them (an evaluation
    /// for an answer records nothing and pays nothing for it).
    ///
    /// - Parameters:
    ///   - receipts: the customer's receipts, of this app and of others.
    ///   - at: the instant to explain.
    ///   - options: the environments, accounts and storefront, as ``evaluate(_:at:options:)`` takes them.
    /// - Returns: what the customer has at `at`, and why.
    public func explain(_ receipts: [some ReceiptConvertible], at: Instant, options: EvaluationOptions = .all) -> Explanation {
        Explainer.explain(self, receipts: receipts.parsed, at: at, options: options.evaluatorOptions())
    }
}

extension Portfolio {
    /// Evaluates receipts for one app of the portfolio.
    ///
    /// The portfolio's other catalogs say which of their products family sharing passes on, for
    /// upgrade prerequisites.
    ///
    /// - Parameters:
    ///   - app: the app to evaluate.
    ///   - receipts: the customer's receipts, of this app and of others (``Receipt`` values or
    ///     ``ParsedReceipt``s).
    ///   - at: the instant to evaluate at.
    ///   - options: the environments, accounts and storefront (``EvaluationOptions``).
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func evaluate(
        app: String, receipts: [some ReceiptConvertible], at: Instant, options: EvaluationOptions = .all
    ) throws(PortfolioError) -> Entitlements {
        let (catalog, options) = try evaluating(app, options: options) { $0 }
        return Evaluator.evaluate(catalog, receipts: receipts.parsed, at: at, options: options)
    }

    /// Explains what a customer has in one app of the portfolio at an instant, and why.
    ///
    /// - Parameters:
    ///   - app: the app to explain.
    ///   - receipts: the customer's receipts, of this app and of others.
    ///   - at: the instant to explain.
    ///   - options: the environments, accounts and storefront (``EvaluationOptions``).
    /// - Throws: ``PortfolioError`` when the portfolio has no catalog for `app`.
    public func explain(
        app: String, receipts: [some ReceiptConvertible], at: Instant, options: EvaluationOptions = .all
    ) throws(PortfolioError) -> Explanation {
        let (catalog, options) = try evaluating(app, options: options) { $0 }
        return Explainer.explain(catalog, receipts: receipts.parsed, at: at, options: options)
    }

    /// What every question about one of the portfolio's apps starts from: the app's catalog, and
    /// evaluation options that carry the portfolio's other catalogs (for upgrade prerequisites
    /// across apps).
    ///
    /// - Parameter failure: the error to throw, made from a ``PortfolioError``, when the
    ///   portfolio has no catalog for `app`.
    func evaluating<Failure: Error>(
        _ app: String, options: EvaluationOptions, failure: (PortfolioError) -> Failure
    ) throws(Failure) -> (catalog: CompiledCatalog, options: Evaluator.Options) {
        guard let catalog = catalog(for: app) else { throw failure(PortfolioError(missingApp: app, known: apps)) }
        return (catalog, options.evaluatorOptions(catalogs: catalogsByApp))
    }
}

/// A request for an app the portfolio has no catalog for.
public struct PortfolioError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The app that was asked for.
    public let missingApp: String
    /// The apps the portfolio has catalogs for.
    public let known: [String]

    package init(missingApp: String, known: [String]) {
        self.missingApp = missingApp
        self.known = known
    }

    /// The problem, without the suggestion: `no catalog for app `com.example.x``.
    public var problem: String { "no catalog for app `\(Diagnostic.excerpt(missingApp))`" }

    /// What to do: the closest app with a catalog ("did you mean"), else the apps there are.
    public var help: String? {
        if let suggestion = Suggestion.help(for: missingApp, in: known) { return suggestion }
        return known.isEmpty ? nil : "the catalogs are for \(CatalogChecker.list(known))"
    }

    /// The error as an `unknown-app` diagnostic, its suggestion as `help`.
    public var diagnostic: Diagnostic { Diagnostic(severity: .error, code: .unknownApp, message: problem, help: help) }

    /// The problem and its help on one line.
    public var description: String { help.map { "\(problem); \($0)" } ?? problem }
}
