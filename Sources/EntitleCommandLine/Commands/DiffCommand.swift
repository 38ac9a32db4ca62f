import Entitle
import Foundation

/// `entitle diff OLD NEW`: what a catalog change is, and what it does to existing customers.
enum DiffCommand {
    /// `--customers PATH ...`: the customers whose answers are compared.
    static let customers = SharedOptions.customers.help(SharedOptions.customers.spec.help + """
        . Every customer is evaluated under both catalogs, and what changes is grouped: "pro: on -> off for 3 of 1,200
        customers: c-17, ..."
        """)
    /// `--at INSTANT ...`: each instant the customers are compared at.
    static let at = SharedOptions.at.repeatable(help: "when to evaluate (repeat for several instants); default: now")
    /// `--fail-on-loss`.
    static let failOnLoss: Option<Bool> = .flag(
        "--fail-on-loss", help: "exit 1 when any customer loses a feature or some balance (a CI gate)")

    /// The command, declared.
    static let command = Subcommand(
        name: "diff", summary: "compare two catalog versions and what the change does to customers",
        synopses: [
            [.argument("OLD NEW", label: "OLD, NEW", help: """
                catalog paths (a file, or a directory whose *.json files are catalogs), e.g. main's products/ and the pull
                request's
                """),
             .optional(customers), .optional(at), .optional(SharedOptions.format), .optional(failOnLoss)]
                + [.optional(ProveOptions.prove), .optional(ProveOptions.depth), .optional(ProveOptions.witnesses)]
                + DiagnosticsOption.synopsis,
        ],
        discussion: """
            Catalog changes are listed per app; those that take something from existing customers (a product removed or
            renamed, a type changed, a grant removed, ...) are flagged DANGEROUS.

            With --prove, the proof follows: what was searched, then per app each feature, balance, product and offer some
            searched customer gets differently, with the smallest such customer (its receipts, the instant, the old and the
            new answer), and those no searched customer tells apart (`same`). --fail-on-loss then also fails when a witness
            loses a feature or some balance, with or without --customers.

            Exits 0 when done, 1 when a catalog has errors (or, with --fail-on-loss, on a loss), 2 on misuse.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        guard arguments.positional.count == 2 else {
            throw UsageError(message: arguments.positional.count < 2 ? "give the OLD and the NEW catalogs"
                             : "unexpected argument `\(arguments.positional[2])`")
        }
        let json = try arguments.value(SharedOptions.format) == .json
        let diagnosticsOption = try DiagnosticsOption(arguments)
        try checkProofOptions(arguments)
        var instants = try arguments.values(at)
        if instants.isEmpty { instants = [environment.now()] }

        // Both versions must compile: a change is judged between two working catalogs.
        var errorText = ""
        var portfolios: [Portfolio] = []
        var catalogErrors: [Diagnostic] = []
        var allDiagnostics: [Diagnostic] = []
        for path in arguments.positional {
            let catalogs = CatalogArguments.compile([path])
            let diagnostics = catalogs.diagnostics
            allDiagnostics += diagnostics
            if let portfolio = catalogs.compilation.portfolio, catalogs.unreadable.isEmpty {
                portfolios.append(portfolio)
            } else {
                catalogErrors += diagnostics.filter(\.isError)
            }
        }
        errorText += diagnosticsOption.emit(allDiagnostics)
        guard portfolios.count == 2 else {
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardOutput: json ? EntitleCommand.jsonErrors(catalogErrors) : "",
                                 standardError: errorText + "entitle: the catalogs have errors: nothing to compare\n")
        }
        let (old, new) = (portfolios[0], portfolios[1])
        let catalogChanges = CatalogDiff.changes(from: old, to: new)
        let proof = try Self.proof(arguments, old: old, new: new, newPath: arguments.positional[1])

        var reports = instants.map(ImpactReport.init)
        let corpusPaths = arguments.texts(customers)
        var corpusProblems: [Diagnostic] = []
        if !corpusPaths.isEmpty {
            let corpus = CustomerCorpus.open(corpusPaths)
            corpusProblems = corpus.problems
            errorText += EntitleCommand.render(corpus.problems)
            let apps = Set(old.apps)
            var done = 0
            var seen: Set<[UInt8]> = []
            let instants = instants
            corpus.forEachChunk({ customer -> (CustomerCorpus.Customer, Result<[[(app: String, change: EntitlementChange)]], ReceiptError>) in
                var listed = customer
                listed.receipts = .success([])  // the receipts are not needed past here
                switch customer.receipts {
                case .failure(let error): return (listed, .failure(error))
                case .success(let receipts): return (listed, .success(impact(of: receipts, old: old, new: new, apps: apps, at: instants)))
                }
            }) { results in
                for (customer, result) in results {
                    let id = customer.id
                    // One customer, one answer: a repeated id would count its changes twice.
                    var result = result
                    if case .success = result, !seen.insert(customer.key).inserted {
                        result = .failure(ReceiptError(
                            code: .badValue, message: "customer `\(Diagnostic.excerpt(id))` appears more than once in the corpus; only its first entry counts",
                            location: customer.location))
                    }
                    for index in reports.indices {
                        switch result {
                        case .failure(let error): reports[index].addUnreadable(error)
                        case .success(let changes): reports[index].add(customer: id, changes: changes[index])
                        }
                    }
                }
                done += results.count
                environment.progress?("entitle diff: \(ImpactReport.count(done)) of \(ImpactReport.count(corpus.items.count)) customers")
            }
            environment.progress?("")
        }

        let losing = reports.map(\.losing).max() ?? 0
        let dangerous = catalogChanges.filter(\.dangerous).count
        var summary = "entitle: \(catalogChanges.count) catalog change\(catalogChanges.count == 1 ? "" : "s") (\(dangerous) dangerous)"
        if !corpusPaths.isEmpty {
            summary += "; \(ImpactReport.count(losing)) customer\(losing == 1 ? "" : "s") lose a feature or balance"
        }
        errorText += (proof?.messages ?? "") + summary + "\n"
        // A gate that could not look at every customer has not shown that nobody loses anything.
        let unchecked = !corpusProblems.isEmpty || reports.contains { $0.unreadable > 0 || $0.customers == 0 }
        let failOnLoss = arguments.contains(Self.failOnLoss)
        if failOnLoss, !corpusPaths.isEmpty, unchecked {
            errorText += "entitle: \(Self.failOnLoss.name): not every customer of the corpus could be evaluated, so the change is not shown to be safe\n"
        }
        let failed = (failOnLoss && (losing > 0 || (!corpusPaths.isEmpty && unchecked) || proof?.loss == true || proof?.complete == false)) || !corpusProblems.isEmpty
        let output = json
            ? JSONOutput.object([
                ("catalogChanges", .array(catalogChanges.map(Self.jsonOutput))),
                ("impact", .array(corpusPaths.isEmpty ? [] : reports.map(\.jsonOutput))),
                ("errors", .array(corpusProblems.map(\.jsonOutput))),
            ] + (proof.map { [("proof", $0.json)] } ?? [])).rendered() + "\n"
            : text(catalogChanges) + (corpusPaths.isEmpty ? "" : "\n" + reports.map(\.text).joined(separator: "\n"))
                + (proof.map { "\n" + $0.text } ?? "")
        return CommandOutput(exitCode: failed ? CommandOutput.invalidInput : CommandOutput.success,
                             standardOutput: output, standardError: errorText)
    }

    /// One customer's changes at each instant, for every app of the old portfolio the customer
    /// has a receipt of. An app the new portfolio no longer has grants nothing there: its
    /// customers' answers become those of a customer with no purchase.
    static func impact(
        of receipts: [ParsedReceipt], old: Portfolio, new: Portfolio, apps: Set<String>, at instants: [Instant]
    ) -> [[(app: String, change: EntitlementChange)]] {
        var customerApps: [String] = []
        for receipt in receipts where apps.contains(receipt.app) && !customerApps.contains(receipt.app) {
            customerApps.append(receipt.app)
        }
        return instants.map { at in
            var changes: [(app: String, change: EntitlementChange)] = []
            for app in customerApps {
                guard let before = try? old.evaluate(app: app, receipts: receipts, at: at),
                      let after = new.catalog(for: app) == nil ? try? old.evaluate(app: app, receipts: [ParsedReceipt](), at: at)
                          : try? new.evaluate(app: app, receipts: receipts, at: at) else { continue }
                changes += after.changes(since: before).map { (app, $0) }
            }
            return changes
        }
    }

    private static func text(_ changes: [CatalogChange]) -> String {
        var lines = ["catalog changes"]
        var app: String?
        for change in changes {
            if change.app != app {
                lines.append("  \(change.app)")
                app = change.app
            }
            var line = "    \(change.kind.rawValue) \(change.id)"
            if let field = change.field { line += " \(field)" }
            if change.from != nil || change.to != nil { line += ": \(change.from ?? "(none)") -> \(change.to ?? "(none)")" }
            if change.dangerous { line += "  DANGEROUS: \(change.why ?? "")" }
            lines.append(line)
        }
        if changes.isEmpty { lines.append("  none") }
        return lines.textOutput
    }

    static func jsonOutput(_ change: CatalogChange) -> JSONOutput {
        func optional(_ text: String?) -> JSONOutput { text.map(JSONOutput.string) ?? .null }
        return .object([
            ("app", .string(change.app)), ("kind", .string(change.kind.rawValue)), ("id", .string(change.id)),
            ("field", optional(change.field)), ("from", optional(change.from)), ("to", optional(change.to)),
            ("dangerous", .bool(change.dangerous)), ("why", optional(change.why)),
        ])
    }
}
