/// The allowances family's diagnostic codes.
extension DiagnosticCode {
    /// An allowance whose keys break a rule of allowances.
    public static let allowanceRule = Self(
        "allowance-rule",
        summary:
            "an allowance's keys break a rule: `every` under an hour or missing on a lifetime, `rollover` without `expires: next` or above 100 x `amount`, `introOffer` without an introductory offer",
        example:
            "catalog.json:14:21: error: products[1].allowances[0].rollover: `rollover` carries credits into the next deposit, so it needs `expires: next`"
    )
    /// A currency a product both makes unlimited and deposits.
    public static let unlimitedAllowance = Self(
        "unlimited-allowance",
        summary: "a product both makes a currency unlimited and deposits it",
        severity: "warning",
        example: "catalog.json:20:19: warning: products[1].unlimited[0]: currency `drafts` is both unlimited and deposited by this product")
}
