/// One difference between two versions of a portfolio's catalogs, as a product manager reviews
/// it: an app, product, feature, currency or grandfather rule added or removed, or one field of a
/// product or rule changed. Changes that take something from existing customers are `dangerous`,
/// with why.
public struct CatalogChange: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What kind of change.
    @nonexhaustive
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// A catalog for a new app.
        case appAdded = "app-added"
        /// An app's catalog is gone.
        case appRemoved = "app-removed"
        /// A new product id.
        case productAdded = "product-added"
        /// A product id is gone (or renamed: a new id is a new product to the App Store).
        case productRemoved = "product-removed"
        /// One field of a product changed (`field` says which).
        case productChanged = "product-changed"
        /// A newly declared feature.
        case featureAdded = "feature-added"
        /// A feature no longer declared.
        case featureRemoved = "feature-removed"
        /// A newly declared currency.
        case currencyAdded = "currency-added"
        /// A currency no longer declared.
        case currencyRemoved = "currency-removed"
        /// A newly declared number limit.
        case limitAdded = "limit-added"
        /// A number limit no longer declared.
        case limitRemoved = "limit-removed"
        /// A number limit's `default` or `combine` changed (`field` says which).
        case limitChanged = "limit-changed"
        /// A new grandfather rule.
        case ruleAdded = "rule-added"
        /// A grandfather rule is gone.
        case ruleRemoved = "rule-removed"
        /// A grandfather rule's condition or grants changed.
        case ruleChanged = "rule-changed"
        /// A subscription the old catalog kept from subscribers of another store's plan
        /// (`subscribed-elsewhere`: that plan granted every feature it grants) is now offered to
        /// them: `id` is the subscription, `to` the other store's plan.
        case offeredToSubscribers = "offered-to-subscribers"
    }

    /// The app whose catalog changed.
    public var app: String
    /// What kind of change.
    public var kind: Kind
    /// The app, product, feature, currency or rule id.
    public var id: String
    /// For `product-changed` and `rule-changed`: the field, a product key of the catalog language
    /// (or `trialDays`, a trial's days from its name); `condition` or `grants` for rules;
    /// `default` or `combine` for `limit-changed`.
    public var field: String?
    /// The value before, as text; `nil` when there was none.
    public var from: String?
    /// The value after, as text; `nil` when there is none.
    public var to: String?
    /// Whether existing customers may lose something by it.
    public var dangerous: Bool
    /// Why it is dangerous.
    public var why: String?

    /// Creates a change.
    public init(
        app: String, kind: Kind, id: String, field: String? = nil, from: String? = nil, to: String? = nil,
        dangerous: Bool = false, why: String? = nil
    ) {
        self.app = app
        self.kind = kind
        self.id = id
        self.field = field
        self.from = from
        self.to = to
        self.dangerous = dangerous
        self.why = why
    }

    /// One line: `app: kind id [field]: from -> to`; for ``Kind/offeredToSubscribers``, `app:
    /// would now be offered id while subscribed on to`.
    public var description: String { "\(app): \(summary)" }

    /// The line without its app, as `entitle diff` lists changes under each app.
    package var summary: String {
        if kind == .offeredToSubscribers { return "would now be offered \(id) while subscribed on \(to ?? "")" }
        var text = "\(kind.rawValue) \(id)"
        if let field { text += " \(field)" }
        if from != nil || to != nil { text += ": \(from ?? "(none)") -> \(to ?? "(none)")" }
        return text
    }
}
