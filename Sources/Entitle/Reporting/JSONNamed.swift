/// A value printed as the name JSON gives it: `"\(ProductState.gracePeriod)"` is `grace-period`,
/// as `check --format json` writes it, not the Swift case name `gracePeriod`.
public protocol JSONNamed: RawRepresentable, CustomStringConvertible where RawValue == String {}

extension JSONNamed {
    /// The JSON name.
    public var description: String { rawValue }
}

extension ProductType: JSONNamed {}
extension IntroOfferMode: JSONNamed {}
extension SubscriptionOfferType: JSONNamed {}
extension Diagnostic.Severity: JSONNamed {}
extension ProductState: JSONNamed {}
extension OfferReason: JSONNamed {}
extension SubscriptionChange: JSONNamed {}
extension ChangeTiming: JSONNamed {}
extension PromotionReason: JSONNamed {}
extension EntitlementChange.Kind: JSONNamed {}
extension CatalogChange.Kind: JSONNamed {}
extension SourceExplanation.Kind: JSONNamed {}
extension TransactionExplanation.Exclusion: JSONNamed {}
extension Transaction.Ownership: JSONNamed {}
extension Transaction.OfferType: JSONNamed {}
extension Transaction.RevocationReason: JSONNamed {}
extension Transaction.RevocationType: JSONNamed {}
extension Transaction.BillingPlan: JSONNamed {}
extension Renewal.ExpirationIntent: JSONNamed {}
extension ReceiptFormat: JSONNamed {}
