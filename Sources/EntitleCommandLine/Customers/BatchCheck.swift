import Entitle
import Foundation

/// `entitle check --customers PATH`: evaluates a customer corpus at one instant and prints one
/// JSON object per line, `{"customer": ID, ...the check JSON...}`; a customer whose receipts
/// cannot be read gets `{"customer": ID, "errors": [...]}` and the run goes on.
enum BatchCheck {
    static func run(
        _ arguments: ParsedArguments, app: String?, at: Instant, account: String? = nil, diagnostics option: DiagnosticsOption,
        verify: VerifyOption? = nil, environment: CommandEnvironment
    ) -> CommandOutput {
        let catalogs = CatalogArguments.compile(arguments.texts(SharedOptions.catalog))
        let diagnostics = catalogs.diagnostics
        var errorText = option.emit(diagnostics)
        guard let portfolio = catalogs.compilation.portfolio, catalogs.unreadable.isEmpty else {
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardOutput: EntitleCommand.jsonErrors(diagnostics.filter(\.isError)),
                                 standardError: errorText + "entitle: the catalogs have errors: \(EntitleCommand.summary(diagnostics))\n")
        }
        if let app, portfolio.catalog(for: app) == nil {
            return EntitleCommand.misuse("\(PortfolioError(missingApp: app, known: portfolio.apps))", command: "check")
        }
        var corpus = CustomerCorpus.open(arguments.texts(CheckCommand.customers))
        corpus.verify = verify
        errorText += EntitleCommand.render(corpus.problems)
        let environments = arguments.texts(SharedOptions.environment)
        let accepted = environments.isEmpty ? nil : Set(environments)
        var output = ""
        var done = 0, failed = 0
        corpus.forEachChunk({ customer -> (line: String, failed: Bool) in
            func line(_ members: [(String, JSONOutput)]) -> String {
                let id: JSONOutput = customer.idIsInteger ? Int64(customer.id).map(JSONOutput.integer) ?? .string(customer.id) : .string(customer.id)
                return JSONOutput.object([("customer", id)] + members).compact() + "\n"
            }
            switch customer.receipts {
            case .failure(let error):
                return (line([("errors", .array([error.diagnostic.jsonOutput]))]), true)
            case .success(let receipts):
                let evaluated = app ?? receipts.first?.app ?? ""
                do throws(PortfolioError) {
                    let result = try portfolio.evaluate(app: evaluated, receipts: receipts, at: at, environments: accepted, account: account)
                    guard case .object(let members) = result.jsonOutput else { return (line([]), false) }
                    return (line(members), false)
                } catch {
                    let diagnostic = error.diagnostic
                    return (line([("errors", .array([diagnostic.jsonOutput]))]), true)
                }
            }
        }) { results in
            let text = results.map(\.line).joined()
            if let write = environment.writeStandardOutput { write(text) } else { output += text }
            failed += results.filter(\.failed).count
            done += results.count
            environment.progress?("entitle check: \(ImpactReport.count(done)) of \(ImpactReport.count(corpus.items.count)) customers")
        }
        environment.progress?("")
        errorText += "entitle: \(ImpactReport.count(done)) customer\(done == 1 ? "" : "s"): \(ImpactReport.count(done - failed)) evaluated, "
            + "\(ImpactReport.count(failed)) could not be\n"
        let problem = failed > 0 || !corpus.problems.isEmpty
        return CommandOutput(exitCode: problem ? CommandOutput.invalidInput : CommandOutput.success,
                             standardOutput: output, standardError: errorText)
    }
}
