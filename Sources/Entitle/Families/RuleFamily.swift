/// One kind of behaviour the catalog language can ask for: trials, upgrade pricing, subscription
/// groups, passes, win-back and promotional offers, ... Each family is an uninhabited type in its
/// own folder under `Families/`, beside the files of its steps (its checks, its evaluation step, its
/// explanation, the ways `diff --prove` searches for it), and says here what the pipeline needs
/// of every family. A family that leaves out a requirement does not compile.
///
/// What is not a family's is the engine's: reading JSON and receipts, time, compiling the catalog
/// as a whole, deduplication and snapshots of transactions, accounts, the next-change driver, the
/// answer and its reports. ``RuleFamilies/all`` lists the families; the engine calls them through
/// it where it needs every family: once a catalog's products are read (`check(_:context:with:)`),
/// for `reevaluateAt` (`futureFacts(_:into:)`: witness-table calls, no allocation, once per
/// answer's next change) and for `entitle diff` (`danger(of:from:to:)`). Tests read it to hold
/// each key of the language and each diagnostic code to exactly one owner, each key's declaration
/// to its owner's folder, and the table of families in `AddingARuleFamily.md` to what is declared
/// here.
protocol RuleFamily: Sendable {
    /// The family's name, as the documentation's table of families gives it.
    static var name: String { get }
    /// Its folder under `Sources/Entitle/Families/`.
    static var folder: String { get }
    /// The keys of the catalog language it brings, in the language's order. A key two families
    /// read belongs to the one that brought it (`paidAtLeast` to offers; retention rules read it).
    static var keys: [CatalogKey] { get }
    /// The diagnostic codes its checks report, and only it.
    static var codes: [DiagnosticCode] { get }
    /// Its rules across the catalog's products, once every product is read and each product's own
    /// rules (in `CatalogChecker+Products` and the family's reader) are checked; `context` has the
    /// products by id and the features declared. A family with no such rule says so with an empty
    /// body.
    static func check(_ catalog: CatalogDefinition, context: CatalogChecker.RuleContext, with checker: inout CatalogChecker)
    /// For `reevaluateAt`: the instants after `moment.at` at which what the family reads changes
    /// with what is known already (its receipt entries dated later, its conditions that turn with
    /// time alone), each with whether it surely changes the answer. The engine adds the
    /// transactions' own facts (purchases, cancellations, snapshots, Advanced Commerce items that
    /// end) and evaluates at each fact that is not sure; a family whose answer changes only with
    /// those says so with an empty body.
    static func futureFacts(_ moment: Evaluator.Moment, into facts: inout [Evaluator.Fact])
    /// For `entitle diff`: whether changing one of its product keys (`key`, one of ``keys``) from
    /// `old`'s value to `new`'s takes something from the product's buyers, and if so why (the
    /// change is then marked dangerous); `nil` when it takes nothing. A family whose keys take
    /// nothing from anyone when they change returns `nil`.
    static func danger(of key: CatalogKey, from old: CatalogProduct, to new: CatalogProduct) -> String?
}

/// The rule families, and what belongs to the engine rather than to one of them.
enum RuleFamilies {
    /// Every family, in the order their checks across products run (the order diagnostics at one
    /// place are reported in).
    static let all: [any RuleFamily.Type] = [
        TrialFamily.self, UpgradeFamily.self, IntroOfferFamily.self, PromotionFamily.self, RetentionFamily.self, ItemFamily.self,
        SubscriptionFamily.self, StoreFamily.self, PassFamily.self, GrandfatherFamily.self, GrantFamily.self, BalanceFamily.self,
        RefundFamily.self, LimitFamily.self, AllowanceFamily.self,
    ]

    /// The keys of the catalog and of every product that no family brings: what a catalog and a
    /// product are (`CatalogLanguage.swift`).
    static let engineKeys: [CatalogKey] = [
        .schema, .comment, .app, .features, .legal, .products, .id, .type, .name, .priceTier, .available, .familyShareable, .grants,
        .duration,
    ]

    /// The codes of reading, of a catalog's shape and references, of deep reviews of products, of
    /// receipts and of the command line, which every family shares.
    static let engineCodes: [DiagnosticCode] = [
        .unreadableFile, .malformedJSON, .notACatalog, .duplicateKey, .unknownKey, .keyNotAllowed, .missingKey, .wrongType, .badEnumValue, .badValue,
        .badDuration, .badInstant, .limitExceeded, .duplicateProduct, .duplicateApp, .undeclaredFeature, .duplicateGrant, .unknownProduct,
        .unknownApp, .storyEvent, .missingLegal, .unusedFeature, .grantsNothing, .neverOn, .neverOffered, .grantsAlwaysOn, .verificationFailed,
        .invalidCatalog, .storeDrift, .unknownTransaction, .usage,
    ]

    /// The family that brings `key`, or `nil` for the engine's keys.
    static func owner(of key: CatalogKey) -> (any RuleFamily.Type)? {
        all.first { $0.keys.contains(key) }
    }

    /// The documentation's table of families (in `AddingARuleFamily.md`): each family, its folder,
    /// its keys and its codes.
    static var documentation: String {
        var lines = ["| Family | Folder | Keys | Codes |", "| --- | --- | --- | --- |"]
        for family in all {
            let keys = family.keys.map { "`\($0.name)`" }.joined(separator: ", ")
            let codes = family.codes.map { "`\($0.rawValue)`" }.joined(separator: ", ")
            lines.append("| \(family.name) | `Families/\(family.folder)/` | \(keys.isEmpty ? "none" : keys) | \(codes.isEmpty ? "none" : codes) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
