/// A catalog for the products of a StoreKit configuration, for `entitle import`: valid at once,
/// for the product manager to finish.
///
/// What a `.storekit` file cannot say is filled with placeholders, named in the catalog's
/// `$comment`: each product grants a feature named after it (consumables credit a currency named
/// after them, one per unit), non-renewing subscriptions last `P1M`, and every subscription type
/// gets a placeholder legal text. A non-consumable named "N-day Trial" at price 0 becomes a trial
/// of the paid non-consumable when there is exactly one, granting what that one grants.
///
/// An auto-renewable's promotional and win-back offers become its `offers`: id, type (`promotional`
/// or `win-back`), mode, duration, `periods` for pay-as-you-go, and the win-back eligibility the
/// file states (`paidAtLeast`, `lapsedAtLeast`, `lapsedAtMost`, `waitBetween`). A `.storekit` file
/// says nothing of when an offer runs (`from`, `until`) or, for a promotional offer, whom the app
/// offers it to (`subscribed`), so neither is written: the developer adds them.
public enum StoreKitCatalog {
    /// The placeholder duration of non-renewing subscriptions.
    public static let placeholderDuration = "P1M"

    /// The placeholder bundle id, when none is given.
    public static let placeholderApp = "com.example.replace-me"

    /// The catalog's JSON text, indented, ending with a newline.
    ///
    /// - Parameters:
    ///   - configuration: the products read from the `.storekit` file.
    ///   - app: the app's bundle id (a `.storekit` file has none); `nil` writes
    ///     ``placeholderApp`` and names it among the placeholders.
    public static func json(from configuration: StoreKitConfiguration, app: String?) -> String {
        // A product id defined twice in the file is imported once.
        var seen: Set<String> = []
        let products = configuration.products.filter { seen.insert($0.id).inserted }
        let paid = products.filter { $0.type == .nonConsumable && !$0.isFree && CatalogChecker.trialDays(in: $0.name) == nil }
        func trialOf(_ product: StoreKitConfiguration.Product) -> String? {
            guard product.type == .nonConsumable, product.isFree, CatalogChecker.trialDays(in: product.name) != nil,
                paid.count == 1
            else { return nil }
            return paid[0].id
        }
        var features: [(String, JSONOutput)] = []
        var currencies: [(String, JSONOutput)] = []
        var entries: [JSONOutput] = []
        var nonRenewing: [String] = []
        for product in products {
            var members: [(String, JSONOutput)] = [
                (CatalogKey.id.name, .string(product.id)), (CatalogKey.type.name, .string(product.type.rawValue)),
                (CatalogKey.name.name, .string(product.name)),
            ]
            let trial = trialOf(product)
            if product.isFree { members.append((CatalogKey.priceTier.name, .integer(0))) }
            switch product.type {
            case .consumable:
                currencies.append((product.id, .string("Placeholder: what \(product.name) credits")))
                members.append((CatalogKey.credits.name, .object([(product.id, .integer(1))])))
            case .nonRenewingSubscription:
                members.append((CatalogKey.duration.name, .string(placeholderDuration)))
                nonRenewing.append(product.id)
            case .autoRenewableSubscription:
                if let group = product.group { members.append((CatalogKey.group.name, .string(group))) }
                if let level = product.level { members.append((CatalogKey.level.name, .integer(Int64(level)))) }
                if let duration = product.duration { members.append((CatalogKey.duration.name, .string(duration.description))) }
                if let offer = product.introOffer {
                    members.append(
                        (
                            CatalogKey.introOffer.name,
                            .object([
                                (CatalogKey.mode.name, .string(offer.mode.rawValue)),
                                (CatalogKey.duration.name, .string(offer.duration.description)),
                            ])
                        ))
                }
                if !product.offers.isEmpty { members.append((CatalogKey.offers.name, .array(product.offers.map(json)))) }
            case .nonConsumable:
                if let trial { members.append((CatalogKey.trialOf.name, .string(trial))) }
            }
            if product.familyShareable { members.append((CatalogKey.familyShareable.name, .bool(true))) }
            if product.type != .consumable {
                let feature = trial ?? product.id
                if trial == nil { features.append((product.id, .string("Placeholder: what \(product.name) unlocks"))) }
                members.append((CatalogKey.grants.name, .array([.string(feature)])))
            }
            entries.append(.object(members))
        }
        let file = configuration.name.split(separator: "/").last.map(String.init) ?? configuration.name
        var notes = [
            "Imported from \(file) by entitle import.",
            "Placeholders to replace: each product grants a feature named after it (rename the features and grants)",
        ]
        if !currencies.isEmpty { notes.append("consumables credit one unit of a currency named after them (set currencies and credits)") }
        if !nonRenewing.isEmpty {
            notes.append(
                "non-renewing subscriptions last \(placeholderDuration), which a .storekit file does not say "
                    + "(set the duration of \(nonRenewing.joined(separator: ", ")))")
        }
        var legal: [(String, JSONOutput)] = []
        if products.contains(where: { $0.type == .autoRenewableSubscription }) {
            legal.append((ProductType.autoRenewableSubscription.rawValue, .string("Placeholder: the legal text of auto-renewable subscriptions.")))
        }
        if !nonRenewing.isEmpty {
            legal.append((ProductType.nonRenewingSubscription.rawValue, .string("Placeholder: the legal text of non-renewing subscriptions.")))
        }
        if !legal.isEmpty { notes.append("the legal texts") }
        if app == nil { notes.append("`app`, which a .storekit file does not say") }
        var catalog: [(String, JSONOutput)] = [
            (CatalogKey.schema.name, .string("../schemas/catalog.schema.json")),
            (CatalogKey.comment.name, .string(notes[0] + " " + notes[1...].joined(separator: "; ") + ".")),
            (CatalogKey.app.name, .string(app ?? placeholderApp)),
            (CatalogKey.features.name, .object(features)),
        ]
        if !currencies.isEmpty { catalog.append((CatalogKey.currencies.name, .object(currencies))) }
        if !legal.isEmpty { catalog.append((CatalogKey.legal.name, .object(legal))) }
        catalog.append((CatalogKey.products.name, .array(entries)))
        return JSONOutput.object(catalog).rendered() + "\n"
    }

    /// One offer as the catalog language writes it, keys in the language's order.
    private static func json(_ offer: SubscriptionOffer) -> JSONOutput {
        var members: [(String, JSONOutput)] = [
            (CatalogKey.id.name, .string(offer.id)), (CatalogKey.type.name, .string(offer.type.rawValue)),
            (CatalogKey.mode.name, .string(offer.mode.rawValue)), (CatalogKey.duration.name, .string(offer.duration.description)),
        ]
        if let periods = offer.periods { members.append((CatalogKey.periods.name, .integer(Int64(periods)))) }
        let conditions: [(CatalogKey, ISODuration?)] = [
            (.paidAtLeast, offer.paidAtLeast), (.lapsedAtLeast, offer.lapsedAtLeast), (.lapsedAtMost, offer.lapsedAtMost),
            (.waitBetween, offer.waitBetween),
        ]
        for case (let key, let value?) in conditions { members.append((key.name, .string(value.description))) }
        return .object(members)
    }
}
