import Foundation

/// The products of an Xcode StoreKit configuration file (`.storekit`, format versions 2 to 5):
/// what `entitle import` turns into a catalog and what `validate --storekit` compares a catalog
/// with. Only what a catalog can say is read; every other field (prices, localizations, offer
/// codes, billing plans, settings) is skipped.
///
/// | .storekit | read as |
/// |---|---|
/// | `products[]` `type` `Consumable` / `NonConsumable` | consumable / non-consumable |
/// | `nonRenewingSubscriptions[]` | non-renewing subscriptions (the file gives no duration) |
/// | `subscriptionGroups[]` `name`, `subscriptions[]` | auto-renewables of that group |
/// | `productID`, `referenceName`, `familyShareable`, `displayPrice` | id, name, family sharing, price |
/// | `groupNumber` | level (1 the highest service; else the order in the group) |
/// | `recurringSubscriptionPeriod` | duration |
/// | `introductoryOffer` `paymentMode` `free` / `payAsYouGo` / `payUpFront`, `subscriptionPeriod` × `numberOfPeriods` | intro offer mode and duration |
/// | `adHocOffers[]` | promotional offers |
/// | `winbackOffers[]` | win-back offers |
/// | offer `offerID`, `paymentMode` | offer id, mode (`free` is `free-trial`) |
/// | offer `subscriptionPeriod`, `numberOfPeriods` | pay-as-you-go: duration (one period) and periods (1 to 12); else duration (period × number) |
/// | win-back `customerEligibilityPaidSubscriptionDurationInMonths` | `paidAtLeast` (`PnM`) |
/// | win-back `customerEligibilityTimeSinceLastSubscribedInMonths` `minimum`, `maximum` | `lapsedAtLeast`, `lapsedAtMost` (`PnM`) |
/// | win-back `customerEligibilityWaitBetweenOffersInMonths` | `waitBetween` (`PnM`) |
///
/// Xcode writes an offer with the keys of an introductory offer plus `offerID`. The fixtures seen
/// so far hold no win-back offer, so a win-back offer is read as an ad-hoc one is, and its
/// eligibility only where the file states it under App Store Connect's names (the three
/// `customerEligibility…` keys above, whole months); any other key of an offer entitle does not
/// know is named in a warning, so eligibility a file states otherwise is never lost silently. An
/// offer whose mode, period, number of periods or eligibility cannot be read is left out with a
/// warning (a dropped condition would offer it to customers it is not for); an offer id used
/// again, within a product or by another, is imported the first time only.
public struct StoreKitConfiguration: Hashable, Sendable {
    /// One product as the configuration defines it.
    public struct Product: Hashable, Sendable {
        /// The product id.
        public var id: String
        /// The reference name.
        public var name: String
        /// The product type.
        public var type: ProductType
        /// Whether Family Sharing passes it on.
        public var familyShareable: Bool
        /// The display price as written (`"0.99"`), when there is one.
        public var price: String?
        /// For auto-renewables: the subscription group's name.
        public var group: String?
        /// For auto-renewables: the subscription group's id in the file.
        public var groupId: String?
        /// For auto-renewables: the level in the group.
        public var level: Int?
        /// For auto-renewables: the renewal period.
        public var duration: ISODuration?
        /// For auto-renewables: the introductory offer.
        public var introOffer: CatalogProduct.IntroOffer?
        /// For auto-renewables: the promotional offers (`adHocOffers`), then the win-back offers
        /// (`winbackOffers`), each in file order.
        public var offers: [SubscriptionOffer] = []

        /// Whether the price is zero.
        public var isFree: Bool { price.map { Double($0) == 0 } ?? false }
    }

    /// The file's name, for messages.
    public var name: String
    /// The file's format version (`version.major`), when it gives one. entitle reads versions 2 to
    /// 5; ``isKnownVersion`` says whether this is one of them.
    public var formatVersion: Int?
    /// Whether the format version is one entitle was written against (2 to 5); a later one is read
    /// as far as its fields are the same.
    public var isKnownVersion: Bool { formatVersion.map { (2...5).contains($0) } ?? true }
    /// The products, in the file's order: `products`, then `nonRenewingSubscriptions`, then each
    /// group's subscriptions.
    public var products: [Product]
    /// What was in the file but could not be carried over (an unreadable period, an offer of an
    /// unknown mode, a number of periods out of range, a repeated product or offer id, an offer key
    /// entitle does not read), in file order.
    public var warnings: [String] = []

    /// Reads a `.storekit` file's bytes.
    ///
    /// - Throws: ``ReceiptError`` (`malformed-json`, `wrong-type`, `missing-key`) located in the file.
    public init(data: Data, name: String) throws(ReceiptError) {
        self.name = name
        let document = try AppleImport.parseDocument(data, name: name, limits: .catalog)
        let lines = LineTable(data)
        func failure(_ node: JSONNode, _ message: String, code: DiagnosticCode = .wrongType) -> ReceiptError {
            let (line, column) = lines.location(of: node.offset)
            return ReceiptError(code: code, message: message, location: SourceLocation(file: name, line: line, column: column))
        }
        guard case .object(let root) = document.root.value else {
            throw failure(document.root, "a StoreKit configuration is a JSON object")
        }
        // Any JSON object would otherwise import as a catalog of nothing.
        let shapeKeys = ["products", "subscriptionGroups", "nonRenewingSubscriptions", "version", "settings"]
        guard root.contains(where: { shapeKeys.contains($0.key) }) else {
            let hint = root.contains { ["app", "transactions", "features"].contains($0.key) } ? " (it looks like a receipt or a catalog)" : ""
            throw failure(
                document.root, "this is not an Xcode StoreKit configuration: it has none of `products`, `subscriptionGroups`, `version`\(hint)",
                code: .missingKey)
        }
        func members(_ node: JSONNode) -> [JSONMember] {
            if case .object(let members) = node.value { return members }
            return []
        }
        func member(_ members: [JSONMember], _ key: String) -> JSONNode? { members.first { $0.key == key }?.value }
        func string(_ members: [JSONMember], _ key: String) -> String? {
            if case .string(let text)? = member(members, key)?.value { return text }
            return nil
        }
        func elements(_ members: [JSONMember], _ key: String) throws(ReceiptError) -> [JSONNode] {
            guard let node = member(members, key) else { return [] }
            switch node.value {
            case .array(let elements): return elements
            case .null: return []
            default: throw failure(node, "`\(key)` must be an array")
            }
        }
        func product(_ node: JSONNode, type fallback: ProductType?) throws(ReceiptError) -> Product {
            guard case .object(let fields) = node.value else { throw failure(node, "a product must be an object") }
            guard let id = string(fields, "productID"), !id.isEmpty else { throw failure(node, "a product without `productID`", code: .missingKey) }
            var type = fallback
            switch string(fields, "type") {
            case "Consumable": type = .consumable
            case "NonConsumable": type = .nonConsumable
            case "NonRenewingSubscription": type = .nonRenewingSubscription
            case "RecurringSubscription": type = .autoRenewableSubscription
            default: break
            }
            guard let type else { throw failure(node, "product `\(id)` has no type entitle knows", code: .badEnumValue) }
            var familyShareable = false
            if case .bool(let value)? = member(fields, "familyShareable")?.value { familyShareable = value }
            return Product(
                id: id, name: string(fields, "referenceName") ?? id, type: type, familyShareable: familyShareable,
                price: string(fields, "displayPrice"))
        }

        var products: [Product] = []
        for node in try elements(root, "products") { products.append(try product(node, type: nil)) }
        for node in try elements(root, "nonRenewingSubscriptions") { products.append(try product(node, type: .nonRenewingSubscription)) }
        for group in try elements(root, "subscriptionGroups") {
            let groupFields = members(group)
            let named = string(groupFields, "name").flatMap { $0.contains(where: { !$0.isWhitespace }) ? $0 : nil }
            let groupName = named ?? string(groupFields, "id") ?? "group"
            for (order, node) in try elements(groupFields, "subscriptions").enumerated() {
                var subscription = try product(node, type: .autoRenewableSubscription)
                let fields = members(node)
                subscription.group = groupName
                subscription.groupId = string(groupFields, "id")
                if case .number(let number)? = member(fields, "groupNumber")?.value, let level = Int(number.text), (1...10_000).contains(level) {
                    subscription.level = level
                } else {
                    subscription.level = min(order + 1, 10_000)
                }
                let period = string(fields, "recurringSubscriptionPeriod")
                subscription.duration = period.flatMap(ISODuration.init)
                if subscription.duration == nil {
                    warnings.append(
                        "product `\(subscription.id)`: renewal period \(period.map { "`\($0)`" } ?? "missing") is not an ISO 8601 duration; the catalog has none"
                    )
                }
                if let offer = member(fields, "introductoryOffer"), case .object(let offerFields) = offer.value {
                    var problem: String?
                    subscription.introOffer = Self.introOffer(offerFields, string: string, member: member, problem: &problem)
                    if let problem { warnings.append("product `\(subscription.id)`: introductory offer \(problem)") }
                }
                for (key, type) in [("adHocOffers", SubscriptionOfferType.promotional), ("winbackOffers", .winBack)] {
                    for (index, node) in try elements(fields, key).enumerated() {
                        var notes: [String] = []
                        let offer = Self.subscriptionOffer(node, type: type, string: string, member: member, notes: &notes)
                        let name = string(members(node), "offerID").map { "`\(Diagnostic.excerpt($0))`" } ?? "\(key)[\(index)]"
                        for note in notes { warnings.append("product `\(subscription.id)`: \(type.rawValue) offer \(name) \(note)") }
                        if let offer { subscription.offers.append(offer) }
                    }
                }
                products.append(subscription)
            }
        }
        var copies: [String: Int] = [:]
        for product in products { copies[product.id, default: 0] += 1 }
        var warned: Set<String> = []
        for product in products where copies[product.id]! > 1 && warned.insert(product.id).inserted {
            warnings.append("product id `\(product.id)` appears \(copies[product.id]!) times; the first is imported")
        }
        // Offer ids are unique in a catalog: the first use of an id is kept, among the products imported.
        var imported: Set<String> = []
        var offerIds: Set<String> = []
        for index in products.indices where imported.insert(products[index].id).inserted {
            let product = products[index].id
            var repeated: [String] = []
            products[index].offers.removeAll { offer in
                if offerIds.insert(offer.id).inserted { return false }
                repeated.append(offer.id)
                return true
            }
            for id in repeated {
                warnings.append("product `\(product)`: offer id `\(Diagnostic.excerpt(id))` is used by an earlier offer; only the first is imported")
            }
        }
        self.products = products
        if let version = member(root, "version"), case .number(let major)? = member(members(version), "major")?.value {
            formatVersion = Int(major.text)
        }
    }

    /// A `paymentMode` as an offer mode; `nil` when it is none entitle knows.
    private static func mode(_ paymentMode: String?) -> IntroOfferMode? {
        switch paymentMode {
        case "free": .freeTrial
        case "payAsYouGo": .payAsYouGo
        case "payUpFront": .payUpFront
        default: nil
        }
    }

    /// The keys of an offer that entitle reads or knows it need not (prices, names, Xcode's ids).
    private static let offerKeys: Set<String> = [
        "offerID", "paymentMode", "subscriptionPeriod", "numberOfPeriods", "displayPrice", "referenceName", "internalID", "billingPlanType",
    ]

    /// App Store Connect's names of a win-back offer's eligibility, in whole months.
    private enum WinBackEligibility {
        static let paid = "customerEligibilityPaidSubscriptionDurationInMonths"
        static let lapsed = "customerEligibilityTimeSinceLastSubscribedInMonths"
        static let wait = "customerEligibilityWaitBetweenOffersInMonths"
        static let keys: Set<String> = [paid, lapsed, wait]
    }

    /// A promotional (`adHocOffers`) or win-back (`winbackOffers`) offer; `nil` when it cannot be
    /// imported whole. `notes` receives what the warnings say, each following the offer's name.
    private static func subscriptionOffer(
        _ node: JSONNode, type: SubscriptionOfferType, string: ([JSONMember], String) -> String?,
        member: ([JSONMember], String) -> JSONNode?, notes: inout [String]
    ) -> SubscriptionOffer? {
        guard case .object(let fields) = node.value else {
            notes.append("is not an object; it is not imported")
            return nil
        }
        let known = type == .winBack ? offerKeys.union(WinBackEligibility.keys) : offerKeys
        let unread = fields.map(\.key).filter { !known.contains($0) }
        if !unread.isEmpty {
            notes.append("has \(unread.map { "`\(Diagnostic.excerpt($0))`" }.joined(separator: ", ")), which entitle does not read")
        }
        guard let id = string(fields, "offerID"), !id.isEmpty else {
            notes.append("has no `offerID`; it is not imported")
            return nil
        }
        let paymentMode = string(fields, "paymentMode")
        guard let mode = mode(paymentMode) else {
            notes.append(
                "of payment mode \(paymentMode.map { "`\($0)`" } ?? "missing") is not imported (entitle knows `free`, `payAsYouGo`, `payUpFront`)")
            return nil
        }
        let text = string(fields, "subscriptionPeriod")
        guard let period = text.flatMap(ISODuration.init), period.isPositive else {
            notes.append("period \(text.map { "`\($0)`" } ?? "missing") is not an ISO 8601 duration; the offer is not imported")
            return nil
        }
        var count = 1
        if let node = member(fields, "numberOfPeriods") {
            guard case .number(let number) = node.value, let value = number.integer, (1...100).contains(value) else {
                notes.append("number of periods is not a whole number from 1 to 100; the offer is not imported")
                return nil
            }
            count = Int(value)
        }
        var duration = period
        var periods: Int?
        if mode == .payAsYouGo {
            guard count <= 12 else {
                notes.append("lasts \(count) periods, more than the 12 a catalog's pay-as-you-go offer may; the offer is not imported")
                return nil
            }
            periods = count
        } else {
            guard let total = period.repeated(count) else {
                notes.append("of \(count) x \(period) is too long to write; the offer is not imported")
                return nil
            }
            duration = total
        }
        var paidAtLeast: ISODuration?
        var lapsedAtLeast: ISODuration?
        var lapsedAtMost: ISODuration?
        var waitBetween: ISODuration?
        if type == .winBack {
            func months(_ node: JSONNode?, _ key: String) -> (ISODuration?, ok: Bool) {
                guard let node, !node.isNull else { return (nil, true) }
                guard case .number(let number) = node.value, let value = number.integer, (1...1_200).contains(value) else {
                    notes.append("eligibility `\(key)` is not a whole number of months from 1 to 1200; the offer is not imported")
                    return (nil, false)
                }
                return (ISODuration("P\(value)M"), true)
            }
            let paid = months(member(fields, WinBackEligibility.paid), WinBackEligibility.paid)
            let wait = months(member(fields, WinBackEligibility.wait), WinBackEligibility.wait)
            var least: (ISODuration?, ok: Bool) = (nil, true)
            var most: (ISODuration?, ok: Bool) = (nil, true)
            if let range = member(fields, WinBackEligibility.lapsed), !range.isNull {
                if case .object(let bounds) = range.value {
                    least = months(member(bounds, "minimum"), WinBackEligibility.lapsed + ".minimum")
                    most = months(member(bounds, "maximum"), WinBackEligibility.lapsed + ".maximum")
                } else {
                    notes.append("eligibility `\(WinBackEligibility.lapsed)` is not an object of `minimum` and `maximum`; the offer is not imported")
                    return nil
                }
            }
            guard paid.ok, wait.ok, least.ok, most.ok else { return nil }
            (paidAtLeast, waitBetween, lapsedAtLeast, lapsedAtMost) = (paid.0, wait.0, least.0, most.0)
        }
        return SubscriptionOffer(
            id: id, type: type, mode: mode, duration: duration, periods: periods, from: nil, until: nil, subscribed: nil,
            paidAtLeast: paidAtLeast, paidAtMost: nil, lapsedAtLeast: lapsedAtLeast, lapsedAtMost: lapsedAtMost, waitBetween: waitBetween)
    }

    /// An introductory offer: its mode, and its period times its number of periods.
    private static func introOffer(
        _ fields: [JSONMember], string: ([JSONMember], String) -> String?, member: ([JSONMember], String) -> JSONNode?,
        problem: inout String?
    ) -> CatalogProduct.IntroOffer? {
        let paymentMode = string(fields, "paymentMode")
        guard let mode = mode(paymentMode) else {
            problem =
                "of payment mode \(paymentMode.map { "`\($0)`" } ?? "missing") is not imported (entitle knows `free`, `payAsYouGo`, `payUpFront`)"
            return nil
        }
        let text = string(fields, "subscriptionPeriod")
        guard let period = text.flatMap(ISODuration.init) else {
            problem = "period \(text.map { "`\($0)`" } ?? "missing") is not an ISO 8601 duration; the offer is not imported"
            return nil
        }
        var periods = 1
        if let node = member(fields, "numberOfPeriods") {
            if case .number(let number) = node.value, let count = Int(number.text), (1...100).contains(count) {
                periods = count
            } else {
                problem = "number of periods is not a whole number from 1 to 100; read as 1"
            }
        }
        guard let duration = period.repeated(periods) else {
            problem = "of \(periods) x \(period) is too long to write; the offer is not imported"
            return nil
        }
        return CatalogProduct.IntroOffer(mode: mode, duration: duration)
    }
}
