import Entitle

/// `entitle graph [--format mermaid|dot] PATH...`: draws catalogs (files, or directories of
/// `*.json` files) as one graph: products and the features they grant, trials, upgrades, groups
/// with their levels, pass groups, offers and grandfather rules (``CatalogGraph``).
enum GraphCommand {
    /// What `--format` chooses for the graph.
    enum Format: String, Sendable {
        /// A Mermaid flowchart (the default).
        case mermaid
        /// Graphviz DOT.
        case dot
    }

    /// `--format mermaid|dot`.
    static let format: Option<Format> = .choice(
        SharedOptions.format.name,
        [
            (.mermaid, help: "a Mermaid flowchart (default), which GitHub shows in a ```mermaid block of Markdown and pull requests"),
            (.dot, help: "Graphviz DOT, for `dot -Tsvg`"),
        ],
        help: "how the graph prints:")

    /// Mermaid's default limit on the text of a diagram (`maxTextSize`), which GitHub keeps:
    /// a longer graph shows as an error there.
    static let mermaidLimit = 50_000

    /// The command, declared.
    static let command = Subcommand(
        name: "graph", summary: "draw catalogs: products, features, trials, upgrades, groups and offers",
        synopses: [
            [
                .optional(format),
                .argument(
                    "PATH...", label: "PATH",
                    help: """
                        a catalog file, or a directory whose *.json files are catalogs; all paths are drawn as one graph, an upgrade
                        pointing into the app it requires when that app's catalog is among them
                        """),
            ]
        ],
        discussion: """
            Products point to the features they grant and consumables to the currencies they credit; a trial points to its
            paid product (dashed), an upgrade to the product it replaces (bold) and to the purchase it requires; subscriptions
            sit in a box per group, by level, passes in a box per pass group; win-back and promotional offers hang off their
            subscription; grandfather rules point to the features they grant.

            Exits 0 when drawn, 1 when a catalog has errors (printed on standard error, nothing drawn), 2 on misuse.
            """,
        run: { arguments, _ throws(UsageError) in try run(arguments) })

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> CommandOutput {
        let format = try arguments.value(Self.format) ?? .mermaid
        let given = try CatalogArguments.compileOperands(arguments)
        // A graph of a catalog with errors would show what the catalog does not say.
        guard let portfolio = given.compilation.portfolio else {
            return CommandOutput(
                exitCode: CommandOutput.invalidInput,
                standardError: EntitleCommand.render(given.diagnostics)
                    + "entitle: nothing drawn: \(EntitleCommand.summary(given.diagnostics))\n")
        }
        let graph = CatalogGraph(portfolio.catalogs)
        var errorText = EntitleCommand.render(given.diagnostics)
        let output: String
        switch format {
        case .mermaid:
            output = graph.mermaid
            if output.utf8.count > mermaidLimit {
                errorText +=
                    "entitle: the graph is \(output.utf8.count) bytes; Mermaid (GitHub too) draws at most \(mermaidLimit) "
                    + "by default: draw fewer catalogs, or use `\(Self.format.name) \(Format.dot.rawValue)`\n"
            }
        case .dot:
            output = graph.dot
        }
        return CommandOutput(exitCode: CommandOutput.success, standardOutput: output, standardError: errorText)
    }
}
