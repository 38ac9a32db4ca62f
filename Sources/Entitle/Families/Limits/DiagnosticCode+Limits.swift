/// The number limits family's diagnostic codes.
extension DiagnosticCode {
    /// A product's limit that the catalog does not declare.
    public static let undeclaredLimit = Self(
        "undeclared-limit",
        summary: "a product's value for a limit the catalog does not declare",
        example: "catalog.json:9:21: error: products[0].limits.project: undeclared limit `project`")
    /// Two declarations of different kinds with one id.
    public static let sharedId = Self(
        "shared-id",
        summary: "a limit with the id of a feature or currency, or a feature and a currency with one id",
        note: "(an error for a limit, a warning for a feature and a currency)",
        example: "catalog.json:5:5: error: limits.drafts: limit `drafts` has the id of a currency")
}
