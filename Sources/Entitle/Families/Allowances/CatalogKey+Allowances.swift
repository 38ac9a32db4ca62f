/// The allowances family's keys: a product's `allowances` (credits it deposits while it covers),
/// the catalog's free `allowances` (credits every customer gets each calendar period), their keys,
/// and a product's `unlimited` currencies.
extension CatalogKey {
    /// Credits deposited while a product covers, or every calendar period for everyone.
    package static let allowances = CatalogKey(
        "allowances",
        place(
            .catalog, .objects(.freeAllowance, max: AllowanceRules.maxPerObject),
            "credits every customer of the app gets each calendar period (UTC), with no purchase"),
        place(
            .product, .objects(.allowance, max: AllowanceRules.maxPerObject),
            "credits the product deposits while it covers: at each counted purchase, then every `every`",
            types: [.nonConsumable, .nonRenewingSubscription, .autoRenewableSubscription]))
    /// Currencies a product makes unlimited while it covers.
    package static let unlimited = CatalogKey(
        "unlimited",
        place(
            .product, .currencyList, "declared currencies not counted while the product covers (consumptions then charge nothing)",
            types: [.nonConsumable, .nonRenewingSubscription, .autoRenewableSubscription]))
    /// The currency an allowance deposits.
    package static let currency = CatalogKey(
        "currency",
        place(.allowance, .currencyReference, "the declared currency it deposits", .required),
        place(.freeAllowance, .currencyReference, "the declared currency it deposits", .required))
    /// What one deposit puts in.
    package static let amount = CatalogKey(
        "amount",
        place(
            .allowance, .integer(1...AllowanceRules.maxAmount, rule: "from 1 to \(AllowanceRules.maxAmount)"),
            "credits per deposit, times the quantity of the transaction that earns it", .required),
        place(
            .freeAllowance, .integer(1...AllowanceRules.maxAmount, rule: "from 1 to \(AllowanceRules.maxAmount)"),
            "credits per deposit", .required))
    /// How often an allowance deposits.
    package static let every = CatalogKey(
        "every",
        place(
            .allowance, .duration,
            "deposit again this long after the last, while the transaction covers (`PT1H` to `P100Y`); without it, once per transaction"),
        place(
            .freeAllowance, .choice(AllowanceRules.calendarPeriods, what: "calendar period"),
            "the calendar period (UTC): `P1D` each day at 00:00Z, `P1W` Mondays, `P1M` the 1st, `P1Y` 1 January", .required))
    /// When a deposit's unspent credits end.
    package static let expires = CatalogKey(
        "expires",
        place(
            .allowance, .durationOrChoice(["next", "never"], what: "expiry"),
            "`next` (the default): at the allowance's next deposit; `never`; or a duration after the deposit. Never later than the access that earned it"
        ),
        place(
            .freeAllowance, .durationOrChoice(["next"], what: "expiry"),
            "`next` (the default): at the next calendar period; or a duration after the deposit"))
    /// How many unspent credits carry into the next deposit.
    package static let rollover = CatalogKey(
        "rollover",
        place(
            .allowance, .integer(0...AllowanceRules.maxAmount * AllowanceRules.maxRolloverFactor, rule: "from 0 to 100 times `amount`"),
            "with `expires: next`, the most unspent credits carried into the next deposit (0 to 100 x `amount`; default 0)"))

    /// The keys of a product's allowance, in the order completion, help and the documentation list them.
    static let allowanceOrder: [CatalogKey] = [comment, currency, amount, every, expires, rollover, introOffer]
    /// The keys of a free allowance.
    static let freeAllowanceOrder: [CatalogKey] = [comment, currency, amount, every, expires]
}
