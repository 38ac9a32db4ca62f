/// Trials: a free "N-day Trial" non-consumable that leads to one paid non-consumable and grants
/// no more than it.
extension CatalogChecker {
    mutating func checkTrial(
        _ trial: ProductDefinition, index: Int, trialOf: Located<String>, catalog: CatalogDefinition, context: RuleContext
    ) {
        if let type = trial.type, type != .nonConsumable {
            report(
                .trialRule, "a trial must be a non-consumable, not \(type.phrase)", at: trialOf.offset,
                path: trialOf.path, help: "App Review allows free trials as price-tier-0 non-consumables named \"N-day Trial\"")
        }
        if trial.upgrade != nil {
            report(.trialRule, "a product cannot be both a trial and an upgrade", at: trialOf.offset, path: trialOf.path)
        }
        if let tier = trial.priceTier {
            if tier.value != 0 {
                report(
                    .trialRule, "a trial must have `priceTier` 0, found \(tier.value)", at: tier.offset, path: tier.path,
                    help: "a trial is free: set `\"priceTier\": 0`; if this product is sold, remove `trialOf`")
            }
        } else if !trial.priceTierBroken {
            report(
                .trialRule, "a trial must have `priceTier` 0", at: trial.id?.offset ?? trial.offset, path: trial.path,
                help: "add `\"priceTier\": 0`")
        }
        let days = trial.name.flatMap { Self.trialDays(in: $0.value) }
        if let name = trial.name, days == nil {
            let lower = name.value.lowercased()
            let caseHelp =
                Self.trialDays(in: lower.replacingOccurrences(of: "-day trial", with: "-day Trial")) != nil
                ? "write it exactly as \"N-day Trial\", e.g. \"14-day Trial\""
                : "App Review requires the form \"N-day Trial\", e.g. \"14-day Trial\""
            report(
                .trialRule, "trial name `\(name.value)` is not of the form \"N-day Trial\"",
                at: name.offset, path: name.path, help: caseHelp)
        }
        if let name = trial.name, let days, days > CatalogLimits.maxDurationNominalDays {
            report(
                .limitExceeded,
                "a trial of \(days) days is longer than `P100Y` (\(CatalogLimits.maxDurationNominalDays) days), the longest duration a catalog may use",
                at: name.offset, path: name.path)
        }
        if let duration = trial.duration, let days, duration.value.wholeDays != days {
            report(
                .trialRule, "`duration` \(duration.value) does not agree with the name's \(days) days",
                at: duration.offset, path: duration.path, help: "use `P\(days)D` or remove `duration`")
        }
        guard
            let (paidIndex, paid, paidId) = namedNonConsumable(
                trialOf, key: .trialOf, of: trial, rule: .trialRule, itself: "a trial cannot be a trial of itself", catalog: catalog,
                context: context)
        else { return }
        if paid.trialOf != nil || paid.priceTier?.value == 0 {
            report(
                .trialRule, "`trialOf` must name a paid product, but `\(paidId.value)` is free",
                at: trialOf.offset, path: trialOf.path, help: "name the full-price product the trial leads to")
            return
        }
        if let replaced = paid.upgrade?.replaces?.value {
            // The product the upgrade replaces, when it exists; when the upgrade's `replaces` is
            // misspelt (its own error), the product it most likely means: a suggestion names
            // only ids the catalog defines.
            let meant =
                context.productsById[replaced] != nil
                ? replaced
                : Suggestion.closest(
                    to: replaced, in: context.productIds.lazy.filter { $0 != paidId.value && $0 != trial.id?.value },
                    budget: &suggestions)
            report(
                .trialRule, "`trialOf` names the upgrade `\(paidId.value)`; a trial leads to the full-price product",
                at: trialOf.offset, path: trialOf.path,
                help: "name the full-price product the upgrade stands in for", meant: meant)
            return
        }
        // When the paid product's grants are broken or misspelt, the trial cannot be judged against them.
        guard !paid.grantsBroken, !paid.itemsBroken, !context.undeclaredGrants.contains(paidIndex) else { return }
        // An Advanced Commerce product grants what its SKUs do.
        let paidGrants = Set(paid.grants.map(\.value) + (paid.items ?? []).flatMap { $0.grants.map(\.value) })
        for grant in trial.grants where !paidGrants.contains(grant.value) && context.declaredFeatures.contains(grant.value) {
            report(
                .trialRule, "trial grants `\(grant.value)`, which its paid product `\(paidId.value)` does not",
                at: grant.offset, path: grant.path,
                help: "a trial may grant only what the paid product grants")
        }
    }

    /// A paid product with two trials: a customer could take one after the other.
    mutating func checkTrialsPerPaidProduct(_ catalog: CatalogDefinition, context: RuleContext) {
        var firstTrial: [Int: Int] = [:]
        for (index, product) in catalog.products.enumerated() {
            guard let trialOf = product.trialOf, trialOf.value != product.id?.value,
                let paid = context.productsById[trialOf.value]
            else { continue }
            if let first = firstTrial[paid], let firstId = catalog.products[first].id {
                warn(
                    .trialRule,
                    "`\(trialOf.value)` already has a trial, `\(firstId.value)` (line \(line(of: firstId.offset))); a customer can take each in turn",
                    at: trialOf.offset, path: trialOf.path, help: "keep one trial per paid product")
            } else {
                firstTrial[paid] = index
            }
        }
    }
}
