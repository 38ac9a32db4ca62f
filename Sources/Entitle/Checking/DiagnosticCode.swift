/// A stable identifier for a kind of diagnostic, for tools and tests that match on it.
///
/// A struct rather than an enum, so new kinds can be added without breaking callers that switch.
/// Each code entitle emits is declared once below, with the summary tools show (SARIF's rule
/// descriptions) and an example line entitle prints: the documentation's list of codes
/// (`Diagnostics.md`) is generated from these declarations.
public struct DiagnosticCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    /// What the documentation says of a code entitle emits; `nil` for a code read back from JSON.
    package let reference: Reference?

    /// A code entitle emits, described.
    package struct Reference: Hashable, Sendable {
        /// One line, lowercase: what the code is about.
        package var summary: String
        /// When it is not an error: `warning`, `note`, ...
        package var severity: String?
        /// More of the summary for the documentation: a parenthesis, or a clause after a comma.
        package var note: String?
        /// A line entitle prints with the code, and its help line.
        package var example: String
    }

    /// A code by its name (a code entitle emits gets its description).
    public init(rawValue: String) {
        self.rawValue = rawValue
        self.reference = Self.all.first { $0.rawValue == rawValue }?.reference
    }

    init(_ rawValue: String, summary: String, severity: String? = nil, note: String? = nil, example: String) {
        self.rawValue = rawValue
        self.reference = Reference(summary: summary, severity: severity, note: note, example: example)
    }

    public var description: String { rawValue }
    public static func == (a: Self, b: Self) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The one-line summary of the code, or `nil` for a code entitle does not emit.
    package var summary: String? { reference?.summary }
}

extension DiagnosticCode {
    // Reading
    /// A file that is missing, a directory, or cannot be read.
    public static let unreadableFile = Self(
        "unreadable-file",
        summary: "a file that is missing, a directory, or cannot be read",
        example: "nope.json:1:1: error: no such file or directory")
    /// Text that is not JSON (or a binary format entitle cannot read).
    public static let malformedJSON = Self(
        "malformed-json",
        summary: "text that is not JSON",
        note: "(comments, curly quotes and trailing commas are named)",
        example: "catalog.json:2:27: error: trailing comma before `}`")
    /// A receipt, or Apple data, where a catalog was expected.
    public static let notACatalog = Self(
        "not-a-catalog",
        summary: "a receipt, or Apple data, where a catalog was expected",
        example: "customer.json:1:1: error: this looks like a receipt (it has `transactions`), not a catalog")
    /// A member name repeated in one JSON object.
    public static let duplicateKey = Self(
        "duplicate-key",
        summary: "a member name repeated in one JSON object",
        example: "catalog.json:3:3: error: duplicate key `app`")
    // Shape
    /// A member name the catalog or receipt language does not have.
    public static let unknownKey = Self(
        "unknown-key",
        summary: "a member name the language does not have",
        note: "(catalogs, receipts, test files)",
        example: """
            catalog.json:4:3: error: feature: unknown key `feature` in catalog
              help: did you mean `features`?
            """)
    /// A member that belongs to another product type.
    public static let keyNotAllowed = Self(
        "key-not-allowed",
        summary: "a member that belongs to another product type",
        example: "catalog.json:5:96: error: products[0].introOffer: `introOffer` is not allowed on a non-consumable")
    /// A required member that is missing.
    public static let missingKey = Self(
        "missing-key",
        summary: "a required member that is missing",
        example: "catalog.json:1:1: error: missing required key `products` in catalog")
    /// A value of the wrong JSON type.
    public static let wrongType = Self(
        "wrong-type",
        summary: "a value of the wrong JSON type",
        example: "catalog.json:5:87: error: products[0].grants: expected an array of feature ids, found a string")
    /// A string that is not one of the allowed values.
    public static let badEnumValue = Self(
        "bad-enum-value",
        summary: "a string that is not one of the allowed values",
        example: """
            catalog.json:6:44: error: products[1].type: unknown product type `auto-renewable`
              help: did you mean `auto-renewable-subscription`?
            """)
    /// A value of the right type that is not allowed (empty, negative, not an id).
    public static let badValue = Self(
        "bad-value",
        summary: "a value of the right type that is not allowed",
        example: "catalog.json:5:90: error: products[0].priceTier: `priceTier` must be 0 or more, found -1")
    /// A duration that is not ISO 8601, zero, or longer than `P100Y`.
    public static let badDuration = Self(
        "bad-duration",
        summary: "a duration that is not ISO 8601, zero, or longer than `P100Y`",
        example: "catalog.json:5:102: error: products[0].duration: `P1X` is not an ISO 8601 duration")
    /// An instant that is not RFC 3339 within years 0001-9999.
    public static let badInstant = Self(
        "bad-instant",
        summary: "an instant that is not RFC 3339 within years 0001-9999",
        note: "(a catalog's instants may also be a date alone, `2026-06-01`, midnight UTC)",
        example: """
            catalog.json:4:64: error: grandfathered[0].originalPurchaseBefore: `2026-02-30T00:00:00Z` is not an instant
              help: 2026-02-30 does not exist: February 2026 has 28 days
            """)
    /// A value or a count past one of entitle's limits (README: Limits).
    public static let limitExceeded = Self(
        "limit-exceeded",
        summary: "a value or a count past one of entitle's limits",
        note: "(see <doc:LimitsAndTrust>)",
        example: "catalog.json:5:13: error: products[0].id: id of 316 bytes is longer than 256 bytes")
    // References
    /// A product id defined twice in one catalog.
    public static let duplicateProduct = Self(
        "duplicate-product",
        summary: "a product id defined twice in one catalog",
        example: "catalog.json:6:13: error: products[1].id: duplicate product id `com.example.app.pro`")
    /// Two catalogs for one app in a portfolio.
    public static let duplicateApp = Self(
        "duplicate-app",
        summary: "two catalogs for one app",
        note: "(`entitle validate a.json b.json`)",
        example: "b.json:2:10: error: app: app `com.example.app` already has a catalog in `a.json`")
    /// A grant of a feature the catalog does not declare.
    public static let undeclaredFeature = Self(
        "undeclared-feature",
        summary: "a grant of a feature the catalog does not declare",
        example: """
            catalog.json:5:88: error: products[0].grants[0]: undeclared feature `pr0`
              help: did you mean `pro`?
            """)
    /// A credit in a currency the catalog does not declare.
    public static let undeclaredCurrency = Self(
        "undeclared-currency",
        summary: "a credit in a currency the catalog does not declare",
        example: "catalog.json:7:88: error: products[1].credits.gem: undeclared currency `gem`")
    /// A feature granted twice by one product.
    public static let duplicateGrant = Self(
        "duplicate-grant",
        summary: "a feature granted twice by one product",
        example: "catalog.json:5:95: error: products[0].grants[1]: feature `pro` is granted twice")
    /// An Advanced Commerce `items` rule broken: a SKU declared by two products, `items` beside
    /// the product's own `grants` or `credits`, on a product of another store.
    public static let itemRule = Self(
        "item-rule",
        summary: "an Advanced Commerce `items` rule broken",
        note: "(a SKU declared by two products, `items` beside the product's own `grants`, an item of a consumable that grants)",
        example: """
            catalog.json:9:14: error: products[2].items.pro.monthly: SKU `pro.monthly` is declared by two products
              help: it is already declared at products[1].items (line 7); a SKU gives one thing
            """)
    /// A reference to a product that is not defined.
    public static let unknownProduct = Self(
        "unknown-product",
        summary: "a reference to a product that is not defined",
        example: "catalog.json:6:114: error: products[1].trialOf: `trialOf` names `com.example.app.pr`, which this catalog does not define")
    /// An app that has no catalog where one was looked for.
    public static let unknownApp = Self(
        "unknown-app",
        summary: "an app that has no catalog where one was looked for",
        note: "(a warning, or a note, in a portfolio; an error for `check --app` and in test files)",
        example: "catalog.json:6:154: warning: products[1].upgrade.requires.app: `com.example.old` is not an app of this portfolio")
    // Rules
    /// A broken rule of free trials.
    public static let trialRule = Self(
        "trial-rule",
        summary: "a broken rule of free trials",
        example: "catalog.json:6:72: error: products[1].name: trial name `Free Trial` is not of the form \"N-day Trial\"")
    /// A broken rule of upgrade pricing.
    public static let upgradeRule = Self(
        "upgrade-rule",
        summary: "a broken rule of upgrade pricing",
        example: "catalog.json:6:154: error: products[1].upgrade.requires.app: an upgrade cannot require a purchase in its own app `com.example.app`")
    /// A broken rule of subscription groups, levels or pass groups.
    public static let groupRule = Self(
        "group-rule",
        summary: "a broken rule of subscription groups, levels or pass groups",
        example:
            "catalog.json:6:13: error: products[1]: in subscription group `g`, `com.example.app.monthly` has a `level` and `com.example.app.yearly` does not"
    )
    /// An App Store-only key on another store's product.
    public static let notForStore = Self(
        "not-for-store",
        summary: "a key one store's products take on another store's product",
        note: "(`priceTier`, `trialOf`, `upgrade`, `familyShareable`, `offers` are the App Store's; `gracePeriod` is Stripe's and other checkouts')",
        example:
            "catalog.json:9:49: error: products[3].offers: `offers` is for App Store products, not `stripe` ones\n  help: win-back and promotional offers are App Store Connect's; a web checkout makes its own"
    )
    /// A subscription or pass group with products of more than one store.
    public static let mixedStoreGroup = Self(
        "mixed-store-group",
        summary: "a subscription or pass group whose products are sold in more than one store",
        example:
            "catalog.json:8:26: error: products[2].group: group `pro` holds products of `app-store` and `stripe`\n  help: a group holds one store's products: name the web products' group e.g. `pro.web`"
    )
    /// A Play subscription id without its base plan.
    public static let badPlayId = Self(
        "bad-play-id",
        summary: "a Play subscription id that is not `<productId>:<basePlanId>`, or a `:` in another id",
        example:
            "catalog.json:7:15: error: products[2].id: Play subscription id `pro` names no base plan\n  help: write `<productId>:<basePlanId>`, e.g. `pro:yearly`, as Play's subscription and base plan"
    )
    /// A Stripe product named by a Price's or a Plan's id, which no purchase names.
    public static let stripePriceId = Self(
        "stripe-price-id",
        summary: "a Stripe product named by a Price's id (`price_...`) or a Plan's (`plan_...`), which no purchase names",
        severity: "warning",
        example:
            "catalog.json:7:15: warning: products[2].id: `price_1PqXyz` is a Stripe Price's id: Stripe's data names a purchase's Product (`prod_...`), so none would match\n  help: name the product by the Price's `product`, the `prod_...` id on the product's page in Stripe's dashboard"
    )
    /// A story event that cannot happen.
    public static let storyEvent = Self(
        "story-event",
        summary: "a story event that cannot happen: out of time order, a refund of nothing, a change of plan without a subscription",
        example: """
            diagrams.test.json:12:9: error: cases[2].story[1].refund: nothing to refund: every purchase by 2026-01-01T00:00:00Z is refunded already, or none was made
            """)
    /// A broken rule of win-back and promotional offers.
    public static let offerRule = Self(
        "offer-rule",
        summary: "a broken rule of win-back and promotional offers",
        example: """
            catalog.json:9:48: error: products[0].offers[1].periods: `periods` is for `pay-as-you-go` offers, not `free-trial`
              help: a `free-trial` offer lasts its `duration`; remove `periods`
            """)
    /// A subscription without legal text.
    public static let missingLegal = Self(
        "missing-legal",
        summary: "a subscription without legal text",
        example: "catalog.json:5:13: error: products[0]: an auto-renewable subscription needs legal text")
    // Warnings
    /// A declared feature no product grants (a warning).
    public static let unusedFeature = Self(
        "unused-feature",
        summary: "a declared feature no product grants",
        severity: "warning",
        example: "catalog.json:3:31: warning: features.extra: feature `extra` is declared but no product grants it")
    /// A declared currency no product credits (a warning).
    public static let unusedCurrency = Self(
        "unused-currency",
        summary: "a declared currency no product credits",
        severity: "warning",
        example: "catalog.json:4:19: warning: currencies.gems: currency `gems` is declared but no product credits it")
    /// A product that grants and credits nothing (a warning).
    public static let grantsNothing = Self(
        "grants-nothing",
        summary: "a product that grants and credits nothing",
        severity: "warning",
        example: "catalog.json:6:13: warning: products[1]: product `com.example.app.tip` grants nothing")
    /// A free "N-day Trial" without `trialOf`, which never expires (a warning).
    public static let looksLikeTrial = Self(
        "looks-like-trial",
        summary: "a free \"N-day Trial\" without `trialOf`, which never expires",
        severity: "warning",
        example: "catalog.json:6:72: warning: products[1].name: `14-day Trial` is named like a trial but has no `trialOf`, so it never expires")
    // A deep review (`entitle validate --deep`): what no searched customer reaches
    /// A feature that no searched customer has on (a warning of `validate --deep`).
    public static let neverOn = Self(
        "never-on",
        summary: "a feature no searched customer has on",
        severity: "warning",
        note: "(`entitle validate --deep`)",
        example: """
            catalog.json:5:5: warning: features.beta: no searched customer has feature `beta` on
              help: it is granted by grandfather rule `testers`; searched every customer of up to 2 transactions at every boundary instant
            """)
    /// A product offered to no searched customer (a warning of `validate --deep`).
    public static let neverOffered = Self(
        "never-offered",
        summary: "a product offered to no searched customer",
        severity: "warning",
        note: "(`entitle validate --deep`)",
        example: """
            catalog.json:12:5: warning: products[1]: product `com.example.app.bundle` is offered to no searched customer
              help: its offer always says `upgrade-available`; searched every customer of up to 2 transactions at every boundary instant
            """)
    /// A product whose grants are all on whenever it may be bought (a warning of `validate --deep`).
    public static let grantsAlwaysOn = Self(
        "grants-always-on",
        summary: "a product whose grants are all on already whenever it may be bought",
        severity: "warning",
        note: "(`entitle validate --deep`)",
        example: """
            catalog.json:12:5: warning: products[1]: whenever product `com.example.app.plus` may be bought, everything it grants is on already
              help: buying it adds none of `pro`; searched every customer of up to 2 transactions at every boundary instant
            """)
    /// A trial that never turns on a feature nothing else covers (a warning of `validate --deep`).
    public static let trialAddsNothing = Self(
        "trial-adds-nothing",
        summary: "a trial that never turns on a feature nothing else covers",
        severity: "warning",
        note: "(`entitle validate --deep`)",
        example: """
            catalog.json:9:5: warning: products[1]: trial `com.example.app.trial` never turns on a feature that nothing else covers
              help: whenever it is active, every feature it grants has another source; searched every customer of up to 2 transactions at every boundary instant
            """)
    /// A grandfather rule no searched receipt matches (a warning of `validate --deep`).
    public static let ruleNeverMatches = Self(
        "rule-never-matches",
        summary: "a grandfather rule no searched receipt matches",
        severity: "warning",
        note: "(`entitle validate --deep`)",
        example: """
            catalog.json:7:5: warning: grandfathered[0]: grandfather rule `paid-app` matches no searched receipt
              help: no receipt of the app, with any original application version or purchase date, gets its features from it; searched every customer of up to 2 transactions at every boundary instant
            """)
    /// A grandfather rule that matches only together with another covering as much (a warning of
    /// `validate --deep`).
    public static let ruleRedundant = Self(
        "rule-redundant",
        summary: "a grandfather rule that matches only where another rule matches, covering as much",
        severity: "warning",
        note: "(`entitle validate --deep`)",
        example: """
            catalog.json:12:5: warning: grandfathered[1]: grandfather rule `early` matches only where rule `paid-app` matches too, covering as much
              help: remove it, or change its condition; searched every customer of up to 2 transactions at every boundary instant
            """)
    /// A win-back or promotional offer whose conditions never all hold (a warning of `validate --deep`).
    public static let offerNeverEligible = Self(
        "offer-never-eligible",
        summary: "a win-back or promotional offer whose conditions never all hold for a searched customer",
        severity: "warning",
        note: "(`entitle validate --deep`)",
        example: """
            catalog.json:20:11: warning: products[3].offers[0]: the conditions of offer `sync.winback` never all hold for a searched customer
              help: it was never eligible: `lapsed-too-recently`, `never-paid`, `subscribed`; searched every customer of up to 2 transactions at every boundary instant
            """)
    // Receipts
    /// One consumption id with two different contents in one receipt.
    public static let conflictingConsumption = Self(
        "conflicting-consumption",
        summary: "one consumption id with two different contents",
        note: "in one receipt (`entitle check --catalog catalog.json --receipt receipt.json`)",
        example: "receipt.json:5:5: error: consumptions[1]: consumption `c-1` appears twice with different content")
    /// One grant id with two different contents in one receipt.
    public static let conflictingGrant = Self(
        "conflicting-grant",
        summary: "one grant id with two different contents",
        note: "in one receipt (`entitle check`)",
        example: "receipt.json:5:5: error: grants[1]: grant `support-1` appears twice with different content")
    /// Signed Apple data that failed verification (`--verify`, ``AppleSignatureVerifier``): the
    /// message starts with the ``VerificationError/Code``.
    public static let verificationFailed = Self(
        "verification-failed",
        summary: "signed Apple data that does not verify",
        note:
            "(`--verify`), the verification code first (`bad-signature`, `untrusted-chain`, `certificate-expired`, `not-apple`, `wrong-app`, `wrong-environment`, `unsupported-algorithm`, `malformed`, `unsigned`) (`entitle normalize --verify --root testCA.der transaction.jws`)",
        example:
            "transaction.jws:1:1: error: untrusted-chain: the intermediate certificate (`x5c[1]`) does not lead to a trusted root: unable to get local issuer certificate"
    )
    // Test files
    /// A catalog a test file (`entitle test`) names has errors, so its cases cannot run.
    public static let invalidCatalog = Self(
        "invalid-catalog",
        summary: "a catalog a test file names has errors",
        note: ", so none of its cases can run (`entitle test`)",
        example: "catalog.test.json:2:14: error: catalog: the catalogs have errors (1 error, 0 warnings), so no case of this file can run")
    /// A difference between a catalog and an Xcode StoreKit configuration (`validate --storekit`).
    public static let storeDrift = Self(
        "store-drift",
        summary: "a difference between a catalog and an Xcode StoreKit configuration",
        severity: "warning; error with `--strict`",
        note: "(`entitle validate --storekit FILE.storekit`)",
        example: "catalog.json:83:19: warning: products[6].duration: duration P1Y here, P1M in Store.storekit")
    // Command line
    /// A broken rule of retention replies.
    public static let retentionRule = Self(
        "retention-rule",
        summary: "a broken rule of retention replies",
        example: "catalog.json:9:30: error: products[3].retention[0].promotionalOffer: `sync.winback` is a win-back offer, not a promotional one")
    /// A transaction a reply to Apple's server is asked about that the customer does not have.
    public static let unknownTransaction = Self(
        "unknown-transaction",
        summary: "a transaction a reply to Apple's server is about that the customer's receipts do not hold",
        note: "(`entitle consumption`; exit code 1)",
        example: "request.json:1:1: error: the customer has no transaction `2000000107` of com.example.diagrams\n  help: did you mean `2000000170`?")
    /// A command line that cannot run (an unknown option, a bad `--at`), in the JSON a command prints.
    public static let usage = Self(
        "usage",
        summary: "a command line that cannot run",
        note: ", in the JSON `check` and `explain` print with `--format json` (the same text goes to standard error, exit code 2)",
        example:
            "{\"errors\": [{\"severity\": \"error\", \"code\": \"usage\", \"message\": \"`--at 2026-02-30`: 2026-02-30 does not exist: February 2026 has 28 days\", ...}]}"
    )

    /// Every code entitle emits, in the order the documentation lists them.
    package static let all: [DiagnosticCode] = [
        .unreadableFile, .malformedJSON, .notACatalog, .duplicateKey, .unknownKey, .keyNotAllowed, .missingKey, .wrongType, .badEnumValue, .badValue,
        .badDuration, .badInstant, .limitExceeded, .duplicateProduct, .duplicateApp, .undeclaredFeature, .undeclaredCurrency, .duplicateGrant,
        .itemRule, .unknownProduct, .unknownApp, .trialRule, .upgradeRule, .groupRule, .offerRule, .notForStore, .mixedStoreGroup, .badPlayId,
        .stripePriceId, .storyEvent,
        .missingLegal, .unusedFeature, .unusedCurrency,
        .grantsNothing, .looksLikeTrial, .neverOn, .neverOffered, .grantsAlwaysOn, .trialAddsNothing, .ruleNeverMatches, .ruleRedundant,
        .offerNeverEligible, .conflictingConsumption, .conflictingGrant, .verificationFailed, .invalidCatalog, .storeDrift, .retentionRule,
        .undeclaredLimit, .sharedId, .allowanceRule, .unlimitedAllowance, .unknownTransaction, .usage,
    ]

    /// The documentation's list of codes (in `Diagnostics.md`), one entry per code: its name, its
    /// severity when it is not an error, its summary, and the example in a code block.
    package static var documentation: String {
        all.map { code in
            let reference = code.reference!
            var line = "- `\(code.rawValue)`" + (reference.severity.map { " (\($0))" } ?? "") + ": " + reference.summary
            if let note = reference.note { line += note.hasPrefix(",") ? note : " " + note }
            let example = reference.example.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            return ([line + ".", "  ```"] + example + ["  ```"]).joined(separator: "\n")
        }.joined(separator: "\n") + "\n"
    }
}
