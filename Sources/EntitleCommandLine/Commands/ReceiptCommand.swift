import Entitle
import Foundation

/// `entitle receipt --catalog PATH [--app BUNDLE] STORY`: writes the receipts a customer's story
/// tells (``Story``), as a JSON array of normalized receipts.
enum ReceiptCommand {
    /// `--app BUNDLE`, as `receipt` reads it.
    static let app = SharedOptions.app.help("the app the story is told for, when the file does not say and the catalogs are for several")

    /// The command, declared.
    static let command = Subcommand(
        name: "receipt", summary: "write the receipts a customer's story tells",
        synopses: [
            [
                .required(SharedOptions.catalog), .optional(app),
                .argument(
                    "STORY",
                    help: """
                        a story: a JSON array of events in time order, or {"app", "story": [...]}; `-` reads standard input
                        """),
            ]
        ],
        discussion: """
            Each event names a catalog product, offer, currency or feature: buy, subscribe (renewals, introOffer, offer,
            willRenew, billingRetry, grace, familyShared), upgrade, downgrade, crossgrade, refund, reverseRefund, extend,
            consume and grant (the Tests article lists their keys). Prints a JSON array of normalized receipts
            (schemas/receipt.schema.json): the app's first, then other apps' and other stores' as the story uses them.
            Transaction ids are `story-1`, `story-2`, ... in the order written, so a story always gives the same bytes.
            A test file takes the same story as a case's `story`.

            Exits 0 when written, 1 when the story or a catalog has errors (located, with a did-you-mean), 2 on misuse.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        guard arguments.positional.count == 1 else { throw UsageError(message: "give exactly one STORY") }
        let path = arguments.positional[0]
        let name = path == "-" ? "<stdin>" : path
        let catalogs = CatalogArguments.compile(arguments.texts(SharedOptions.catalog))
        guard let portfolio = catalogs.compilation.portfolio else {
            return CommandOutput(
                exitCode: CommandOutput.invalidInput,
                standardError: EntitleCommand.render(catalogs.diagnostics)
                    + "entitle: nothing written: \(EntitleCommand.summary(catalogs.diagnostics))\n")
        }
        let data: Data
        do {
            data = try ReceiptFiles.read(path, what: "story", standardInput: environment.readStandardInput)
        } catch {
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardError: error.description + "\n")
        }
        var reader = JSONShapeReader(file: name, data: data)
        var receipts: [Receipt]?
        if let document = JSONDocument.parse(
            data, limits: .catalog, lines: reader.lines, name: { $0 }, report: { reader.report($0, $1, at: $2, path: "", help: $3) })
        {
            var story = document.root
            var storyPath = ""
            var app = try arguments.value(Self.app)
            if case .object = document.root.value {
                if let members = reader.object(
                    document.root, path: "", allowed: ["$schema", "$comment", "app", "story"], required: ["story"], what: "story file"),
                    let node = members["story"]?.value
                {
                    story = node
                    storyPath = "story"
                    if app == nil, let given = members["app"]?.value { app = reader.nonEmptyString(given, path: "app") }
                }
            }
            if !reader.hasErrors {
                // Without an app: the portfolio's one, else the one whose catalog sells what the story buys.
                let candidates = portfolio.apps.count == 1 ? portfolio.apps : Story.apps(toldBy: story, portfolio: portfolio)
                if let app = app ?? (candidates.count == 1 ? candidates[0] : nil) {
                    receipts = Story.receipts(story, path: storyPath, app: app, portfolio: portfolio, reader: &reader)
                } else {
                    let which = candidates.isEmpty ? portfolio.apps : candidates
                    reader.report(
                        .missingKey,
                        candidates.isEmpty
                            ? "the catalogs are for \(CatalogChecker.list(portfolio.apps)): which app is the story told for?"
                            : "the products the story names are sold by \(CatalogChecker.list(which)): which app is the story told for?",
                        at: story.offset, path: storyPath, help: "give `--app BUNDLE`, or write {\"app\": ..., \"story\": [...]}")
                }
            }
        }
        let warnings = EntitleCommand.render(catalogs.diagnostics)
        guard let receipts, !reader.hasErrors else {
            // In file order, as `entitle test` reports a test file's.
            let located = TestRunner.inFileOrder(reader.diagnostics, of: name)
            return CommandOutput(
                exitCode: CommandOutput.invalidInput,
                standardError: warnings + EntitleCommand.render(located)
                    + "entitle: nothing written: \(EntitleCommand.summary(reader.diagnostics))\n")
        }
        let text = "[\n" + receipts.map { $0.json.dropLast() }.joined(separator: ",\n") + "\n]\n"
        return CommandOutput(standardOutput: text, standardError: warnings)
    }
}
