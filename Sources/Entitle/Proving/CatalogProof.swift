import Foundation

/// Proofs about catalogs by exhaustive search of small customers: whether two versions of a
/// portfolio give any customer of up to a few transactions a different answer
/// (``compare(_:_:options:progress:)``, `entitle diff --prove`), and what in one portfolio no such customer
/// ever reaches (``review(_:sources:options:progress:)``, `entitle validate --deep`).
///
/// The search evaluates with the evaluator itself, so what it shows is what the engine does.
/// What it searches, and what it cannot see, is in `Proving.md` ("Proving a catalog change").
///
///     let old = try Portfolio.load(path: "main/products").get()
///     let new = try Portfolio.load(path: "products").get()
///     let report = CatalogProof.compare(old, new)
///     for item in report.differences { print(item.item, item.verdict, item.witnesses.first?.at as Any) }
///     if report.showsLoss { ... }   // a customer loses a feature or some balance
public enum CatalogProof {
    /// Searches every customer of up to `options.depth` transactions built from both versions of
    /// the portfolio, under each, at every instant where an answer changes, and reports each part
    /// of each app's answer as `same` or with the smallest witness of each way it moves.
    ///
    /// Apps only one version has are searched too: every part of their answer moves from or to
    /// nothing.
    ///
    /// - Parameters:
    ///   - old: the catalogs before the change.
    ///   - new: the catalogs after it.
    ///   - options: the depth (default 2), the environments evaluation accepts, the threads, the
    ///     time limit.
    ///   - progress: told how far the search is, app by app, from the searching threads; `nil`:
    ///     nothing is told.
    /// - Returns: per app and part of the answer, the verdict and witnesses; what was searched.
    public static func compare(
        _ old: Portfolio, _ new: Portfolio, options: ProofOptions = ProofOptions(), progress: (@Sendable (ProofProgress) -> Void)? = nil
    ) -> ProofReport {
        let apps = ReceiptSpace.union([new.apps, old.apps])
        let deadline = options.timeLimit.map { ContinuousClock.now + $0 }
        var statistics = ProofStatistics()
        var items: [ProofReport.Item] = []
        for (position, app) in apps.enumerated() {
            let catalogs = [old.catalog(for: app), new.catalog(for: app)]
            let required = ReceiptSpace.union(catalogs.compactMap { $0?.requiredApps })
            let unchangedApps = Set(required.filter { old.catalog(for: $0)?.products == new.catalog(for: $0)?.products })
            let space = ReceiptSpace(
                app: app, catalogs: catalogs, includesGrants: true, environments: options.environments,
                unchangedApps: unchangedApps, skipsUnchanged: options.skipsUnchanged, reducesEquivalents: options.searchesEquivalentOnce)
            let search = ProofSearch<ProofComparison>(
                space: space, options: [evaluation(old, options), evaluation(new, options)], depth: options.depth,
                threads: threads(options), relatedOnly: options.relatedOnly, maxCustomers: options.maxCustomers, deadline: deadline,
                progress: report(progress, app: app, index: position, of: apps.count))
            let (comparison, searched) = search.run { ProofComparison() }
            statistics.add(searched)
            // What Advanced Commerce SKUs give is not searched: a change to it is not proven.
            let changedItems = ReceiptSpace.union(catalogs.map { $0?.products.map(\.id) ?? [] }).filter { id in
                let before = catalogs[0]?.product(id)?.items
                let after = catalogs[1]?.product(id)?.items
                return (before != nil || after != nil) && before != after
            }
            if !changedItems.isEmpty { statistics.unsearchedItems = (statistics.unsearchedItems ?? []) + changedItems.map { "\(app) \($0)" } }
            items += comparison.items(of: space)
        }
        return ProofReport(depth: options.depth, statistics: statistics, apps: apps, items: items)
    }

    /// Searches every customer of up to `options.depth` transactions built from each catalog of
    /// the portfolio, and reports, as warnings located in the catalogs, what no searched customer
    /// reaches: a feature never on, a product never offered, a product whose grants are always on
    /// whenever it may be bought, a trial that never adds anything, a grandfather rule that never
    /// matches or only with another that covers as much, a win-back or promotional offer whose
    /// conditions never all hold.
    ///
    /// - Parameters:
    ///   - portfolio: the catalogs to review.
    ///   - sources: the catalogs' sources, to locate each warning (a catalog whose source is not
    ///     among them gets warnings without a location).
    ///   - options: the depth (default 2), the environments evaluation accepts, the threads, the
    ///     time limit.
    ///   - progress: told how far the search is, catalog by catalog, from the searching threads;
    ///     `nil`: nothing is told.
    /// - Returns: the warnings, and what was searched.
    public static func review(
        _ portfolio: Portfolio, sources: [CatalogSource], options: ProofOptions = ProofOptions(),
        progress: (@Sendable (ProofProgress) -> Void)? = nil
    ) -> CatalogReview {
        let deadline = options.timeLimit.map { ContinuousClock.now + $0 }
        var statistics = ProofStatistics()
        var findings: [CatalogReview.Finding] = []
        for (index, catalog) in portfolio.catalogs.enumerated() {
            let space = ReceiptSpace(
                app: catalog.app, catalogs: [catalog], includesGrants: false,
                environments: options.environments, extendOffersWithGrants: true)
            let search = ProofSearch<ReviewObserver>(
                space: space, options: [evaluation(portfolio, options)], depth: options.depth, threads: threads(options),
                relatedOnly: options.relatedOnly, maxCustomers: options.maxCustomers, deadline: deadline,
                progress: report(progress, app: catalog.app, index: index, of: portfolio.catalogs.count))
            let (observer, searched) = search.run { ReviewObserver(space: space) }
            statistics.add(searched)
            findings += observer.findings(catalog: catalog, space: space)
        }
        return CatalogReview(
            depth: options.depth, statistics: statistics, findings: findings, sources: sources,
            files: Dictionary(portfolio.catalogs.map { ($0.app, $0.source) }, uniquingKeysWith: { first, _ in first }))
    }

    /// How evaluation runs against a portfolio: its catalogs (for family-shared prerequisites),
    /// the accepted environments.
    private static func evaluation(_ portfolio: Portfolio, _ options: ProofOptions) -> Evaluator.Options {
        Evaluator.Options(environments: options.environments, catalogs: portfolio.catalogsByApp)
    }

    /// A search's progress, as the caller's callback takes it.
    private static func report(
        _ progress: (@Sendable (ProofProgress) -> Void)?, app: String, index: Int, of count: Int
    ) -> (@Sendable (Int, Double) -> Void)? {
        guard let progress else { return nil }
        return { @Sendable (customers: Int, fraction: Double) in
            progress(ProofProgress(app: app, app: index + 1, of: count, customers: customers, fraction: fraction))
        }
    }

    private static func threads(_ options: ProofOptions) -> Int {
        options.threads ?? max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
}

/// How far a proof's search is: which app, how many customers of it were searched, and the share
/// of its combinations done; told as units of work finish, from the searching threads.
public struct ProofProgress: Sendable, Hashable {
    /// The app searched.
    public var app: String
    /// Its place among the apps searched, from 1.
    public var appNumber: Int
    /// How many apps are searched.
    public var appCount: Int
    /// Customers of this app searched so far.
    public var customers: Int
    /// The share of this app's combinations of elements searched, 0 to 1.
    public var fraction: Double

    /// A progress report.
    public init(app: String, app number: Int, of count: Int, customers: Int, fraction: Double) {
        self.app = app
        appNumber = number
        appCount = count
        self.customers = customers
        self.fraction = fraction
    }
}
