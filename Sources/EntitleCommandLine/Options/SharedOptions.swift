import Entitle

/// The options several commands accept, each declared once: `check`, `explain`, `diff`, `test`,
/// `normalize` and `import` list them in their synopses, some with help of their own.
///
/// The options of one command are declared with it (`ExplainCommand.feature`); the
/// `--diagnostics` and `--verify` families with ``DiagnosticsOption`` and ``VerifyOption``.
enum SharedOptions {
    /// The start of the synopsis of a command that evaluates customers: the catalogs, the receipts
    /// (`receipts`: `--receipt`, or `check`'s `--customers`), and what the evaluation is of: the
    /// app, the instant, the environments, the account and the storefront, then `--store` where the
    /// command shows one store's view.
    static func evaluating(_ receipts: SynopsisItem, store: Bool = false) -> [SynopsisItem] {
        [.required(catalog), receipts, .optional(app), .optional(at), .optional(environment), .optional(account), .optional(storefront)]
            + (store ? [.optional(Self.store)] : [])
    }

    /// `--help`, `-h`: every command accepts it.
    static let help: Option<Bool> = .flag("--help", aliases: ["-h"], help: "show this help")

    /// `--catalog PATH ...`: the catalogs, read as one portfolio.
    static let catalog: Option<String> = .path(
        "--catalog", kind: .repeatable, help: "a catalog file, or a directory whose *.json files are catalogs; repeat to add more")

    /// `--receipt FILE ...`: a customer's receipts, in any format entitle reads.
    static let receipt: Option<String> = .path(
        "--receipt", valueName: "FILE", kind: .repeatable,
        help: """
            a receipt: normalized JSON, Apple's verifyReceipt, App Store (JWS) or PKCS#7 data, Stripe's objects or Google
            Play's purchases, recognized from the content; `-` reads standard input; repeat for more
            """)

    /// `--app BUNDLE`: the app to evaluate, and the app of store data that names none.
    static let app: Option<String> = .text(
        "--app", valueName: "BUNDLE",
        help: """
            the app to evaluate (default: the first receipt's app); also the app of store data that names none (Apple's renewal
            info alone, Stripe's objects, Play's bare resources)
            """)

    /// `--token TOKEN`: the purchase token of a Play resource read alone.
    static let token: Option<String> = .text(
        "--token", valueName: "TOKEN",
        help: "the purchase token of Google Play resources read alone (Play's responses do not carry it); a record's own `purchaseToken` wins")

    /// `--at INSTANT`: when to evaluate.
    static let at: Option<Instant> = .instant(
        "--at", help: "when to evaluate: RFC 3339 (2026-01-15T09:00:00Z) or a date alone (2026-01-15, midnight UTC); default: now")

    /// `--environment NAME ...`: the receipt environments accepted.
    static let environment: Option<ReceiptEnvironment> = .environment(
        "--environment",
        help: """
            accept receipts of this environment only (`production`, `sandbox`, `xcode`, `local-testing`); repeat for more;
            default: all. A receipt without one is `production`; others are ignored with a warning
            """)

    /// `--account ID ...`: the customer's accounts in the app.
    static let account: Option<String> = .account(
        "--account", kind: .repeatable,
        help: """
            the customer's account in the app, 1 to 256 characters; repeat for each account of one customer (an App Store
            `appAccountToken` and the service's own id, say): App Store transactions name it as `appAccountToken` (a UUID,
            compared without case), other stores' as `account` (compared exactly); transactions and renewal entries naming
            an account not given count for nothing, with a warning; those naming no account count; default: every account counts
            """)

    /// `--storefront CODE`: the customer's storefront now.
    static let storefront: Option<Storefront> = .storefront(
        "--storefront",
        help: """
            the customer's storefront now, ISO 3166-1 alpha-3 or alpha-2 in any case (`USA`, `us`): products that list
            `storefronts` are offered only there; default: none, so those products are not offered
            """)

    /// `--store STORE`: one store's offers.
    static let store: Option<Store> = .choice(
        "--store", valueName: "STORE", Store.allCases.map { ($0, help: nil) },
        help: "show only the offers of this store's products, as that store's paywall needs them (features and products stay whole)")

    /// `--format text|json`: how a command prints its own result.
    static let format: Option<OutputFormat> = .choice(
        "--format", [(.text, help: nil), (.json, help: nil)], help: "`text` for people (default) or `json` for scripts")

    /// `--customers PATH ...`: a customer corpus (``CustomerCorpus``).
    static let customers: Option<String> = .path(
        "--customers", kind: .repeatable,
        help: """
            a customer corpus: a directory in which each file is one customer's receipt or each subdirectory holds one
            customer's receipts, or a JSON Lines file of {"customer": ID, "receipts": [...]}; `-` streams JSON Lines from
            standard input; repeat for more
            """)

    /// `--jobs N`: how many threads evaluate a customer corpus (``BatchPipeline``).
    static let jobs: Option<Int> = .integer(
        "--jobs", in: 1...1_024,
        help: "evaluate the customers on N threads (default: the machine's cores); the output is the same for any N")
}

/// What `--format` chooses for a command's own result.
enum OutputFormat: String, Sendable {
    /// For people (the default).
    case text
    /// For scripts.
    case json
    /// A table, one row per fact (``CSVTable``): `check` only.
    case csv
    /// An OpenFeature Remote Evaluation Protocol bulk response: `check` only.
    case ofrep
}
