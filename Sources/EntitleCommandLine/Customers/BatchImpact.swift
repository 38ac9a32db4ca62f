import Entitle
import Foundation

/// `entitle diff --customers`: what a catalog change does to a corpus of customers, at each
/// instant, and over all of them.
///
/// The corpus is streamed through a ``BatchPipeline``: read in chunks on one thread, each
/// customer evaluated under both catalogs at every instant on `jobs` threads, and the changes
/// counted in corpus order on the calling thread, which keeps only the counts, the first ids of
/// each group, and the ids seen (to find a repeated one: only its first entry counts).
struct BatchImpact {
    /// What happens at each instant.
    var reports: [ImpactReport]
    /// Distinct customers who lose a feature or some balance at one instant or more.
    var losing = 0
    /// The first of them, in corpus order (at most ``ImpactReport/keptIds``).
    var losingCustomers: [String] = []
    /// Corpus paths that could not be read, or not to the end.
    var problems: [Diagnostic] = []
    /// The error of the customer last counted when its id was seen before.
    var lastRepeated: ReceiptError?

    /// One change of one app's answer. `subscribedIn` is, for an offer the new catalog sells to a
    /// customer the old one kept it from because they pay for its features in another store
    /// (`subscribed-elsewhere`), the stores they pay in: a change that starts selling a plan to
    /// people who pay for it already, which `diff` lists on its own line.
    struct AppChange: Sendable {
        var app: String
        var change: EntitlementChange
        var subscribedIn: [Store] = []
    }

    /// One customer's changes at each instant, or why they could not be found.
    struct Assessed: Sendable {
        var id: String
        var idIsInteger: Bool
        var identified: Bool
        var location: SourceLocation?
        var changes: Result<[[AppChange]], ReceiptError>
    }

    /// A chunk's customers, assessed.
    struct Chunk: Sendable {
        var customers: [Assessed]
        var progress: Double?
    }

    /// Evaluates every customer of the corpus at `paths` under `old` and `new` at each instant.
    static func run(
        corpus paths: [String], old: Portfolio, new: Portfolio, at instants: [Instant], jobs: Int, environment: CommandEnvironment,
        changes: ChangesFile? = nil
    ) -> BatchImpact {
        var impact = BatchImpact(reports: instants.map(ImpactReport.init))
        var opened = CustomerCorpus.open(paths)
        opened.standardInput = environment.standardInputDescriptor
        let corpus = opened
        impact.problems = corpus.problems
        let apps = Set(old.apps)
        var ids = CustomerIdSet()
        var done = 0
        var progress = BatchProgress(command: "entitle diff", environment: environment)
        let readProblems = ProblemBox()
        BatchPipeline<CustomerCorpus.Chunk, Chunk>(jobs: jobs).run(
            readChunks: { emit in readProblems.problems = corpus.read(emit) },
            transform: { chunk in
                Chunk(
                    customers: chunk.items.map { item in
                        let customer = corpus.load(item)
                        return Assessed(
                            id: customer.id, idIsInteger: customer.idIsInteger, identified: customer.identified,
                            location: customer.location,
                            changes: customer.receipts.map { BatchImpact.impact(of: $0, old: old, new: new, apps: apps, at: instants) })
                    }, progress: chunk.progress)
            },
            consume: { chunk in
                var written = ""
                for customer in chunk.customers {
                    impact.add(customer, ids: &ids)
                    changes?.append(customer, instants: instants, repeated: impact.lastRepeated, to: &written)
                }
                changes?.write(written)
                done += chunk.customers.count
                progress.update(customers: done, fraction: chunk.progress)
            })
        progress.finish()
        impact.problems += readProblems.problems
        return impact
    }

    /// Counts one customer, in corpus order.
    private mutating func add(_ customer: Assessed, ids: inout CustomerIdSet) {
        var changes = customer.changes
        let kind = customer.idIsInteger ? UInt8(ascii: "#") : UInt8(ascii: "\"")
        // One customer, one answer: a repeated id would count its changes twice.
        lastRepeated = nil
        if customer.identified, !ids.insert(kind: kind, id: customer.id) {
            let error = CustomerCorpus.repeated(id: customer.id, location: customer.location)
            changes = .failure(error)
            lastRepeated = error
        }
        switch changes {
        case .failure(let error):
            for index in reports.indices { reports[index].addUnreadable(error) }
        case .success(let changes):
            for index in reports.indices { reports[index].add(customer: customer.id, changes: changes[index]) }
            if changes.contains(where: { $0.contains(where: \.change.isLoss) }) {
                losing += 1
                if losingCustomers.count < ImpactReport.keptIds { losingCustomers.append(customer.id) }
            }
        }
    }

    /// One customer's changes at each instant, for every app of the old portfolio the customer
    /// has a receipt of. An app the new portfolio no longer has grants nothing there: its
    /// customers' answers become those of a customer with no purchase.
    static func impact(
        of receipts: [ParsedReceipt], old: Portfolio, new: Portfolio, apps: Set<String>, at instants: [Instant]
    ) -> [[AppChange]] {
        var customerApps: [String] = []
        for receipt in receipts where apps.contains(receipt.app) && !customerApps.contains(receipt.app) {
            customerApps.append(receipt.app)
        }
        return instants.map { at in
            var changes: [AppChange] = []
            for app in customerApps {
                guard let before = try? old.evaluate(app: app, receipts: receipts, at: at),
                    let after = new.catalog(for: app) == nil
                        ? try? old.evaluate(app: app, receipts: [ParsedReceipt](), at: at)
                        : try? new.evaluate(app: app, receipts: receipts, at: at)
                else { continue }
                changes += after.changes(since: before).map { change in
                    AppChange(app: app, change: change, subscribedIn: Self.subscribedIn(change, before: before))
                }
            }
            return changes
        }
    }

    /// The stores a customer pays in for an offer the change makes eligible that was
    /// `subscribed-elsewhere` (their subscriptions there that keep going); none for other changes.
    static func subscribedIn(_ change: EntitlementChange, before: Entitlements) -> [Store] {
        guard change.kind == .offer, case .offer(let was)? = change.from, was.reason == .subscribedElsewhere,
            case .offer(let now)? = change.to, now.eligible, let offer = before.offer(for: change.id)
        else { return [] }
        let stores = before.products.filter { $0.store != offer.store && $0.type == .autoRenewableSubscription && $0.state.keepsSubscription }
            .map(\.store)
        return Store.allCases.filter(stores.contains)
    }

    /// `N customers lose a feature or balance`, in agreement with N.
    static func loseSentence(_ count: Int) -> String {
        "\(ImpactReport.count(count)) customer\(count == 1 ? " loses" : "s lose") a feature or balance"
    }

    /// For people, after the instants' reports, when there are several: who loses something at
    /// one instant or another.
    var text: String {
        let shown = losingCustomers.prefix(5).joined(separator: ", ") + (losing > 5 ? ", ..." : "")
        return "across the \(reports.count) instants\n  \(Self.loseSentence(losing))" + (losing == 0 ? "" : ": \(shown)") + "\n"
    }
}
