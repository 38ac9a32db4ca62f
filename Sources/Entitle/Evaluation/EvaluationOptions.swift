/// What an evaluation is asked besides the receipts and the instant: which receipt environments
/// count, whose accounts the customer's are, and where the customer shops now.
///
/// One value for every question (``CompiledCatalog/evaluate(_:at:options:)``,
/// ``Portfolio/evaluate(app:receipts:at:options:)``, ``CustomerHistory/evaluate(in:app:at:options:)``,
/// their `explain`, the retention and consumption replies). Its parts are checked when they are
/// made: a ``Storefront`` or ``ReceiptEnvironment`` that is not one throws there, so an evaluation
/// never reads a misspelt value as "none".
///
///     let options = EvaluationOptions(
///         environments: [.production], accounts: [appAccountToken, webAccountId], storefront: try Storefront("US"))
///     let result = try portfolio.evaluate(app: app, receipts: receipts, at: now, options: options)
public struct EvaluationOptions: Hashable, Sendable {
    /// The receipt environments to accept; `nil` accepts every receipt. A receipt without an
    /// environment is `production`; a receipt of another environment is ignored entirely, with an
    /// `environment-ignored` warning.
    public var environments: Set<ReceiptEnvironment>?
    /// The customer's accounts in the app, each 1 to 256 characters: an App Store
    /// `appAccountToken` (a UUID, compared without case), another store's `account` (compared
    /// exactly). A transaction or renewal entry naming none of them counts for nothing, with an
    /// `other-account` warning; one naming no account counts. Empty: every account counts.
    public var accounts: [String]
    /// The customer's storefront now: a product that lists `storefronts` is offered only in those;
    /// `nil` (unknown): in none.
    public var storefront: Storefront?

    /// Options from values already checked.
    public init(environments: Set<ReceiptEnvironment>? = nil, accounts: [String] = [], storefront: Storefront? = nil) {
        self.environments = environments
        self.accounts = accounts
        self.storefront = storefront
    }

    /// Options from text, as a command line or a request carries them: each environment and the
    /// storefront is checked here.
    ///
    /// - Parameters:
    ///   - environments: environment names (``ReceiptEnvironment/init(_:)``); `nil` accepts every
    ///     receipt.
    ///   - accounts: the customer's accounts.
    ///   - storefront: an ISO 3166-1 code, alpha-3 or alpha-2 in any case; `nil`: unknown.
    /// - Throws: ``InvalidValue`` for the first environment or storefront that is not one, with
    ///   the closest that is.
    public init(environments: [String]?, accounts: [String] = [], storefront: String?) throws(InvalidValue) {
        var accepted: Set<ReceiptEnvironment>?
        if let environments {
            accepted = []
            for name in environments { accepted?.insert(try ReceiptEnvironment(name)) }
        }
        self.init(environments: accepted, accounts: accounts, storefront: try storefront.map { name throws(InvalidValue) in try Storefront(name) })
    }

    /// Every receipt, every account, no storefront.
    public static let all = EvaluationOptions()

    /// A value that is not an environment or a storefront, refused where the options are made.
    public struct InvalidValue: Error, Hashable, Sendable, CustomStringConvertible {
        /// The option the value was for: `environment` or `storefront`.
        public let option: String
        /// The value as given.
        public let value: String
        /// What is wrong with it.
        public let problem: String
        /// The closest value that is one ("did you mean"), if any.
        public let help: String?

        /// The problem and its help on one line.
        public var description: String { help.map { "\(problem); \($0)" } ?? problem }
    }

    /// The evaluator's options, with the portfolio's catalogs (for upgrade prerequisites).
    func evaluatorOptions(catalogs: [String: CompiledCatalog] = [:]) -> Evaluator.Options {
        Evaluator.Options(
            environments: environments.map { Set($0.map(\.name)) }, catalogs: catalogs, accounts: accounts, storefront: storefront?.code)
    }
}

/// A receipt environment an evaluation may accept: `production`, `sandbox`, `xcode` or
/// `local-testing` (a receipt's `environment`, Apple's raw values read the same way).
public struct ReceiptEnvironment: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The environment's name as receipts are compared with it (`local-testing`).
    public let name: String

    private init(known name: String) { self.name = name }

    /// Purchases with real money.
    public static let production = ReceiptEnvironment(known: "production")
    /// Apple's and Google's test purchases.
    public static let sandbox = ReceiptEnvironment(known: "sandbox")
    /// StoreKit testing in Xcode.
    public static let xcode = ReceiptEnvironment(known: "xcode")
    /// Apple's local testing (`LocalTesting`).
    public static let localTesting = ReceiptEnvironment(known: "local-testing")
    /// Every environment entitle knows, in this order.
    public static let known: [ReceiptEnvironment] = [.production, .sandbox, .xcode, .localTesting]

    /// The environment named `name`, in any case; Apple's `LocalTesting` is `local-testing`.
    ///
    /// - Throws: ``EvaluationOptions/InvalidValue`` with the closest known name (`prod` ->
    ///   `production`) when it is none of them.
    public init(_ name: String) throws(EvaluationOptions.InvalidValue) {
        let normalized = Evaluator.environment(name)
        guard let known = Self.known.first(where: { $0.name == normalized }) else {
            let names = Self.known.map(\.name)
            let suggestion = Suggestion.closest(to: normalized, in: names) ?? names.first { $0.hasPrefix(normalized) }
            throw EvaluationOptions.InvalidValue(
                option: "environment", value: name,
                problem: "`\(Diagnostic.excerpt(name))` is not a receipt environment (\(CatalogChecker.list(names)))",
                help: suggestion.map { "did you mean `\($0)`?" })
        }
        self = known
    }

    /// An environment entitle does not know that a service's own receipts carry (`staging`),
    /// accepted on purpose: ``init(_:)`` refuses such a name, since a misspelt one would ignore
    /// every receipt. Compared with a receipt's `environment` without case.
    public init(custom name: String) { self.name = Evaluator.environment(name) }

    /// The name.
    public var description: String { name }

    /// Environments in the order of their names.
    public static func < (a: ReceiptEnvironment, b: ReceiptEnvironment) -> Bool { a.name < b.name }
}
