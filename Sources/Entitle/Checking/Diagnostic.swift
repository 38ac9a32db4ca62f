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

    public var severity: Severity
    public var code: DiagnosticCode
    /// Lowercase, no trailing period, user input in backticks.
    public var message: String
    public var location: SourceLocation?
    /// The JSON path of the value concerned, such as `products[3].grants[1]`; empty for the root.
    public var path: String
    /// Extra advice, printed on its own `help:` line.
    public var help: String?

    public init(
        severity: Severity, code: DiagnosticCode, message: String,
        location: SourceLocation? = nil, path: String = "", help: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.location = location
        self.path = path
        self.help = help
    }

    public var isError: Bool { severity == .error }

    /// `file:line:column: severity: path: message`, then `  help: ...` when there is help.
    public var description: String {
        var text = ""
        if let location { text += "\(location): " }
        text += "\(severity.rawValue): "
        if !path.isEmpty { text += "\(path): " }
        text += message
        if let help { text += "\n  help: \(help)" }
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
    public static let unreadableFile = Self(rawValue: "unreadable-file")
    public static let malformedJSON = Self(rawValue: "malformed-json")
    public static let notACatalog = Self(rawValue: "not-a-catalog")
    public static let duplicateKey = Self(rawValue: "duplicate-key")
    // Shape
    public static let unknownKey = Self(rawValue: "unknown-key")
    public static let keyNotAllowed = Self(rawValue: "key-not-allowed")
    public static let missingKey = Self(rawValue: "missing-key")
    public static let wrongType = Self(rawValue: "wrong-type")
    public static let badEnumValue = Self(rawValue: "bad-enum-value")
    public static let badValue = Self(rawValue: "bad-value")
    public static let badDuration = Self(rawValue: "bad-duration")
    public static let badInstant = Self(rawValue: "bad-instant")
    public static let limitExceeded = Self(rawValue: "limit-exceeded")
    // References
    public static let duplicateProduct = Self(rawValue: "duplicate-product")
    public static let duplicateApp = Self(rawValue: "duplicate-app")
    public static let undeclaredFeature = Self(rawValue: "undeclared-feature")
    public static let undeclaredCurrency = Self(rawValue: "undeclared-currency")
    public static let duplicateGrant = Self(rawValue: "duplicate-grant")
    public static let unknownProduct = Self(rawValue: "unknown-product")
    public static let unknownApp = Self(rawValue: "unknown-app")
    // Rules
    public static let trialRule = Self(rawValue: "trial-rule")
    public static let upgradeRule = Self(rawValue: "upgrade-rule")
    public static let missingLegal = Self(rawValue: "missing-legal")
    // Warnings
    public static let unusedFeature = Self(rawValue: "unused-feature")
    public static let unusedCurrency = Self(rawValue: "unused-currency")
    public static let grantsNothing = Self(rawValue: "grants-nothing")
    public static let looksLikeTrial = Self(rawValue: "looks-like-trial")
    // Receipts
    public static let conflictingConsumption = Self(rawValue: "conflicting-consumption")
}
