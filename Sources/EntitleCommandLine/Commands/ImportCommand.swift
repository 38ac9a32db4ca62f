import Entitle
import Foundation

/// `entitle import FILE.storekit`: a catalog for the products of an Xcode StoreKit configuration.
enum ImportCommand {
    /// The command, declared.
    static let command = Subcommand(
        name: "import", summary: "make a catalog from an Xcode StoreKit configuration file",
        synopses: [
            [
                .argument("FILE.storekit", help: "an Xcode StoreKit configuration file (format versions 2 to 5)"),
                .optional(SharedOptions.app.help("the app's bundle id (a .storekit file has none)")),
            ]
        ],
        discussion: """
            Prints a catalog with the file's products: ids, types, names, subscription groups, levels, durations, family
            sharing and introductory offers; a free "N-day Trial" non-consumable becomes a trial of the paid non-consumable
            when there is exactly one. What the file cannot say is filled with placeholders that the catalog's "$comment"
            names: each product grants a feature named after it, consumables credit a currency named after them,
            non-renewing subscriptions last P1M, placeholder legal texts. The catalog is valid as printed: save it, then
            rename the features.

            Exits 0 when done, 1 when the file cannot be read, 2 on misuse.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) -> CommandOutput {
        guard arguments.positional.count == 1 else {
            throw UsageError(message: arguments.positional.isEmpty ? "give the .storekit file" : "give one .storekit file")
        }
        let app = try arguments.value(SharedOptions.app)
        let path = arguments.positional[0]
        do throws(ReceiptError) {
            let data = try ReceiptFiles.read(path, what: "StoreKit configuration file", standardInput: environment.readStandardInput)
            let configuration = try StoreKitConfiguration(data: data, name: path == "-" ? "<stdin>" : path)
            let catalog = StoreKitCatalog.json(from: configuration, app: app)
            var errorText = Self.versionWarning(configuration)
            for warning in configuration.warnings { errorText += "\(configuration.name): warning: \(warning)\n" }
            // The catalog printed must be one `validate` accepts; when the file holds what a catalog
            // cannot (a duration past P100Y, an id with a slash), say so and fail.
            let output = "<imported from \(configuration.name)>"
            let errors = Portfolio.compile([CatalogSource(name: output, data: Data(catalog.utf8))]).diagnostics.filter(\.isError)
            let count = Set(configuration.products.map(\.id)).count
            if !errors.isEmpty {
                return CommandOutput(
                    exitCode: CommandOutput.invalidInput, standardOutput: catalog,
                    standardError: errorText + EntitleCommand.render(errors)
                        + "entitle: the imported catalog does not validate (\(EntitleCommand.summary(errors))); "
                        + "fix these in the printed catalog or in the StoreKit file\n")
            }
            return CommandOutput(
                standardOutput: catalog,
                standardError: errorText
                    + "entitle: \(count) product\(count == 1 ? "" : "s") imported; "
                    + "replace the placeholders the catalog's $comment names\n")
        } catch {
            return CommandOutput(exitCode: CommandOutput.invalidInput, standardError: error.diagnostic.description + "\n")
        }
    }

    /// A warning for a format version entitle was not written against, or nothing.
    static func versionWarning(_ configuration: StoreKitConfiguration) -> String {
        guard !configuration.isKnownVersion, let version = configuration.formatVersion else { return "" }
        return "\(configuration.name): warning: StoreKit configuration format version \(version); entitle reads versions 2 to 5, "
            + "so check the result: fields this version added or renamed are not read\n"
    }
}
