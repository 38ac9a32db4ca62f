/// One problem found in a catalog or receipt: severity, a stable code, a message, where it is and,
/// when there is something to suggest, a help line.
///
/// Diagnostics are values: the checker gathers all of them in one pass instead of stopping at the
/// first. Printed, a diagnostic reads like a compiler's:
///
///     products/diagrams.json:14:27: error: products[0].grants[1]: undeclared feature `export.pfd`
///       help: did you mean `export.pdf`?
public struct Diagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Hashable, Sendable {
        /// The input is rejected.
        case error
        /// The input is accepted; something is probably not what was meant.
        case warning
        /// The input is accepted; something could not be checked, or is worth knowing.
        case note
    }

    /// Whether the input is rejected (`error`) or accepted (`warning`, `note`).
    public var severity: Severity
    /// A stable identifier of the kind of problem, for tools and tests.
    public var code: DiagnosticCode
    /// Lowercase, no trailing period, user input in backticks.
    public var message: String
    /// Where the problem is; `nil` for problems of no one file (no catalogs given).
    public var location: SourceLocation?
    /// The JSON path of the value concerned, such as `products[3].grants[1]`; empty for the root.
    public var path: String
    /// Extra advice, printed on its own `help:` line.
    public var help: String?

    /// Creates a diagnostic.
    public init(
        severity: Severity, code: DiagnosticCode, message: String,
        location: SourceLocation? = nil, path: String = "", help: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = Self.bounded(message)
        self.location = location
        self.path = Self.bounded(path)
        self.help = help.map(Self.bounded)
    }

    /// The most UTF-8 bytes a message, path or help line keeps; past it the middle is cut. A
    /// crafted name of megabytes must not make every logged diagnostic as large (names echoed in
    /// messages are shortened far earlier, by ``excerpt(_:)``; this bounds everything else).
    package static let maxTextBytes = 4096

    /// `text`, or its start and end with the middle replaced by how much was cut when it is
    /// longer than ``maxTextBytes``.
    package static func bounded(_ text: String) -> String {
        guard text.utf8.count > maxTextBytes else { return text }
        let keep = maxTextBytes / 2 - 64
        let head = String(decoding: text.utf8.prefix(keep), as: UTF8.self)
        let tail = String(decoding: text.utf8.suffix(keep), as: UTF8.self)
        return "\(head)…[\(text.utf8.count - 2 * keep) bytes cut]…\(tail)"
    }

    /// A name from the input as messages and paths show it: itself, or when longer than 120
    /// bytes its first 60 and how long it is (`AAAA…` (5000000 bytes)), so a crafted name is
    /// recognizable without being repeated whole.
    package static func excerpt(_ name: String) -> String {
        guard name.utf8.count > 120 else { return name }
        return "\(String(decoding: name.utf8.prefix(60), as: UTF8.self))…(\(name.utf8.count) bytes)"
    }

    /// Whether the diagnostic rejects the input.
    public var isError: Bool { severity == .error }

    /// `file:line:column: severity: path: message`, then `  help: ...` when there is help.
    public var description: String {
        var text = ""
        if let location { text += "\(location): " }
        text += "\(severity.rawValue): "
        if !path.isEmpty { text += "\(path): " }
        text += message
        // Names from the input may hold line breaks or escapes: printed escaped, one line each.
        text = text.escapingControlCharacters
        if let help { text += "\n  help: \(help.escapingControlCharacters)" }
        return text
    }
}

/// A stable identifier for a kind of diagnostic, for tools and tests that match on it.
///
/// A struct rather than an enum, so new kinds can be added without breaking callers that switch.
public struct DiagnosticCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // Reading
    /// A file that is missing, a directory, or cannot be read.
    public static let unreadableFile = Self(rawValue: "unreadable-file")
    /// Text that is not JSON (or a binary format entitle cannot read).
    public static let malformedJSON = Self(rawValue: "malformed-json")
    /// A receipt, or Apple data, where a catalog was expected.
    public static let notACatalog = Self(rawValue: "not-a-catalog")
    /// A member name repeated in one JSON object.
    public static let duplicateKey = Self(rawValue: "duplicate-key")
    // Shape
    /// A member name the catalog or receipt language does not have.
    public static let unknownKey = Self(rawValue: "unknown-key")
    /// A member that belongs to another product type.
    public static let keyNotAllowed = Self(rawValue: "key-not-allowed")
    /// A required member that is missing.
    public static let missingKey = Self(rawValue: "missing-key")
    /// A value of the wrong JSON type.
    public static let wrongType = Self(rawValue: "wrong-type")
    /// A string that is not one of the allowed values.
    public static let badEnumValue = Self(rawValue: "bad-enum-value")
    /// A value of the right type that is not allowed (empty, negative, not an id).
    public static let badValue = Self(rawValue: "bad-value")
    /// A duration that is not ISO 8601, zero, or longer than `P100Y`.
    public static let badDuration = Self(rawValue: "bad-duration")
    /// An instant that is not RFC 3339 within years 0001-9999.
    public static let badInstant = Self(rawValue: "bad-instant")
    /// A value or a count past one of entitle's limits (README: Limits).
    public static let limitExceeded = Self(rawValue: "limit-exceeded")
    // References
    /// A product id defined twice in one catalog.
    public static let duplicateProduct = Self(rawValue: "duplicate-product")
    /// Two catalogs for one app in a portfolio.
    public static let duplicateApp = Self(rawValue: "duplicate-app")
    /// A grant of a feature the catalog does not declare.
    public static let undeclaredFeature = Self(rawValue: "undeclared-feature")
    /// A credit in a currency the catalog does not declare.
    public static let undeclaredCurrency = Self(rawValue: "undeclared-currency")
    /// A feature granted twice by one product.
    public static let duplicateGrant = Self(rawValue: "duplicate-grant")
    /// A reference to a product that is not defined.
    public static let unknownProduct = Self(rawValue: "unknown-product")
    /// An app that has no catalog where one was looked for.
    public static let unknownApp = Self(rawValue: "unknown-app")
    // Rules
    /// A broken rule of free trials.
    public static let trialRule = Self(rawValue: "trial-rule")
    /// A broken rule of upgrade pricing.
    public static let upgradeRule = Self(rawValue: "upgrade-rule")
    /// A broken rule of subscription groups, levels or pass groups.
    public static let groupRule = Self(rawValue: "group-rule")
    /// A subscription without legal text.
    public static let missingLegal = Self(rawValue: "missing-legal")
    // Warnings
    /// A declared feature no product grants (a warning).
    public static let unusedFeature = Self(rawValue: "unused-feature")
    /// A declared currency no product credits (a warning).
    public static let unusedCurrency = Self(rawValue: "unused-currency")
    /// A product that grants and credits nothing (a warning).
    public static let grantsNothing = Self(rawValue: "grants-nothing")
    /// A free "N-day Trial" without `trialOf`, which never expires (a warning).
    public static let looksLikeTrial = Self(rawValue: "looks-like-trial")
    // Receipts
    /// One consumption id with two different contents in one receipt.
    public static let conflictingConsumption = Self(rawValue: "conflicting-consumption")
    /// One grant id with two different contents in one receipt.
    public static let conflictingGrant = Self(rawValue: "conflicting-grant")
    /// Signed Apple data that failed verification (`--verify`, ``AppleSignatureVerifier``): the
    /// message starts with the ``VerificationError/Code``.
    public static let verificationFailed = Self(rawValue: "verification-failed")
    // Test files
    /// A catalog a test file (`entitle test`) names has errors, so its cases cannot run.
    public static let invalidCatalog = Self(rawValue: "invalid-catalog")
    /// A difference between a catalog and an Xcode StoreKit configuration (`validate --storekit`).
    public static let storeDrift = Self(rawValue: "store-drift")
    // Command line
    /// A command line that cannot run (an unknown option, a bad `--at`), in the JSON a command prints.
    public static let usage = Self(rawValue: "usage")
}
