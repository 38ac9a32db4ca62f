extension DiagnosticCode {
    /// Every code entitle emits, in declaration order, with a one-line summary: what tools that
    /// list rules show (SARIF's `shortDescription`). A test checks that every code declared in
    /// `Diagnostic.swift` is here and in the README.
    package static let all: [(code: DiagnosticCode, summary: String)] = [
        (.unreadableFile, "a file that is missing, a directory, or cannot be read"),
        (.malformedJSON, "text that is not JSON"),
        (.notACatalog, "a receipt, or Apple data, where a catalog was expected"),
        (.duplicateKey, "a member name repeated in one JSON object"),
        (.unknownKey, "a member name the language does not have"),
        (.keyNotAllowed, "a member that belongs to another product type"),
        (.missingKey, "a required member that is missing"),
        (.wrongType, "a value of the wrong JSON type"),
        (.badEnumValue, "a string that is not one of the allowed values"),
        (.badValue, "a value of the right type that is not allowed"),
        (.badDuration, "a duration that is not ISO 8601, zero, or longer than P100Y"),
        (.badInstant, "an instant that is not RFC 3339 within years 0001-9999"),
        (.limitExceeded, "a value or a count past one of entitle's limits"),
        (.duplicateProduct, "a product id defined twice in one catalog"),
        (.duplicateApp, "two catalogs for one app"),
        (.undeclaredFeature, "a grant of a feature the catalog does not declare"),
        (.undeclaredCurrency, "a credit in a currency the catalog does not declare"),
        (.duplicateGrant, "a feature granted twice by one product"),
        (.unknownProduct, "a reference to a product that is not defined"),
        (.unknownApp, "an app that has no catalog where one was looked for"),
        (.trialRule, "a broken rule of free trials"),
        (.upgradeRule, "a broken rule of upgrade pricing"),
        (.groupRule, "a broken rule of subscription groups, levels or pass groups"),
        (.missingLegal, "a subscription without legal text"),
        (.unusedFeature, "a declared feature no product grants"),
        (.unusedCurrency, "a declared currency no product credits"),
        (.grantsNothing, "a product that grants and credits nothing"),
        (.looksLikeTrial, "a free N-day Trial without trialOf, which never expires"),
        (.conflictingConsumption, "one consumption id with two different contents"),
        (.conflictingGrant, "one grant id with two different contents"),
        (.verificationFailed, "signed Apple data that failed verification"),
        (.invalidCatalog, "a catalog a test file needs has errors"),
        (.storeDrift, "a difference between a catalog and an Xcode StoreKit configuration"),
        (.usage, "a command line that cannot run"),
    ]

    /// The one-line summary of the code, or `nil` for a code entitle does not emit.
    package var summary: String? {
        Self.all.first { $0.code == self }?.summary
    }
}
