import Entitle
import Foundation

/// `entitle explain`: why a customer has what they have, down to each transaction.
enum ExplainCommand {
    static let usage = """
        usage: entitle explain --catalog PATH [--catalog PATH ...] --receipt FILE [--receipt FILE ...]
                               [--app BUNDLE] [--at INSTANT] [--environment NAME ...]
                               [--feature ID | --product ID | --offer ID] [--format text|json]
                               [--diagnostics FORMAT] [--diagnostics-file FILE] [--verify --root FILE ...]

          --feature ID      a feature: on or off, until when, and every product, grandfather
                            rule and grant that can grant it, each with its state and why, down
                            to each transaction (counted, or why not) and the span it covers
          --product ID      a product: its state and why, its coverage, transactions and
                            renewal entries
          --offer ID        an offer: the rule that decided it and the fact behind it
          (none)            every feature, one line each, with the source that decides it

          --catalog, --receipt, --app, --at, --environment, --verify, --root: as for `entitle check`
          --format FORMAT   `text` for people (default) or `json` (see the README for the shape)
        \(DiagnosticsOption.usage)

        Exits 0 when done, 1 on an invalid catalog or receipt, 2 on misuse (an id the catalog
        does not define included).

        """

    static func run(_ arguments: [String], environment: CommandEnvironment) -> CommandOutput {
        let scanner: ArgumentScanner
        let json: Bool
        let appOption: String?
        let at: Instant
        let selector: (option: String, id: String)?
        let diagnostics: DiagnosticsOption
        let verify: VerifyOption?
        do throws(UsageError) {
            scanner = try ArgumentScanner(
                arguments, valued: DiagnosticsOption.valued.union(["--catalog", "--receipt", "--app", "--at", "--format", "--environment", "--feature", "--product", "--offer"])
                    .union(VerifyOption.valued),
                flags: VerifyOption.flags.union(["--help", "-h"]))
            if scanner.flags.contains("--help") || scanner.flags.contains("-h") { return CommandOutput(standardOutput: usage) }
            guard scanner.positional.isEmpty else { throw UsageError(message: "unexpected argument `\(scanner.positional[0])`") }
            guard !scanner.all("--catalog").isEmpty else { throw UsageError(message: "`--catalog` is required") }
            guard !scanner.all("--receipt").isEmpty else { throw UsageError(message: "give at least one `--receipt`") }
            if scanner.all("--receipt").filter({ $0 == "-" }).count > 1 {
                throw UsageError(message: "standard input (`-`) can be read only once")
            }
            let format = try EntitleCommand.outputFormat(scanner)
            json = format == "json"
            diagnostics = try DiagnosticsOption(scanner)
            verify = try VerifyOption.parse(scanner)
            appOption = try scanner.single("--app")
            at = try scanner.single("--at").map { text throws(UsageError) in try InstantArgument.parse(text) } ?? environment.now()
            var selectors: [(String, String)] = []
            for option in ["--feature", "--product", "--offer"] {
                if let id = try scanner.single(option) { selectors.append((option, id)) }
            }
            guard selectors.count <= 1 else { throw UsageError(message: "give one of `--feature`, `--product` and `--offer`") }
            selector = selectors.first
        } catch {
            return EntitleCommand.misuse(error.message, command: "explain", arguments: arguments)
        }
        var inputs: EvaluationInputs
        switch EvaluationInputs.load(scanner, app: appOption, at: at, json: json, diagnostics: diagnostics, verify: verify, environment: environment) {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        let explanation: Explanation
        do {
            explanation = try inputs.portfolio.explain(app: inputs.app, receipts: inputs.receipts.map(ParsedReceipt.init), at: at,
                                                       environments: inputs.environments)
        } catch {
            return inputs.failure([Diagnostic(severity: .error, code: .unknownApp, message: "\(error)")], "nothing to explain",
                                  exitCode: CommandOutput.misuse)
        }
        inputs.noteOtherCatalogErrors()
        let output: String?
        switch selector?.option {
        case "--feature": output = json ? explanation.json(feature: selector!.id) : explanation.text(feature: selector!.id)
        case "--product": output = json ? explanation.json(product: selector!.id) : explanation.text(product: selector!.id)
        case "--offer": output = json ? explanation.json(offer: selector!.id) : explanation.text(offer: selector!.id)
        default: output = json ? explanation.json : explanation.text
        }
        guard let output else {
            let (option, id) = selector!
            let kind = option == "--feature" ? "feature" : "product"
            let known = option == "--feature" ? explanation.features.map(\.id)
                : option == "--product" ? explanation.products.map(\.id) : explanation.offers.map(\.productId)
            var message = "`\(inputs.app)` has no \(option == "--product" && explanation.offer(id) != nil ? "state for consumable" : kind) `\(id)`"
            if let suggestion = Suggestion.closest(to: id, in: known) { message += "; did you mean `\(suggestion)`?" }
            return inputs.failure([Diagnostic(severity: .error, code: option == "--feature" ? .undeclaredFeature : .unknownProduct, message: message)], "nothing to explain",
                                  exitCode: CommandOutput.misuse)
        }
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: output, standardError: inputs.errorText)
    }
}
