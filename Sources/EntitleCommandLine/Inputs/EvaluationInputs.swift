import Entitle
import Foundation

/// What `check` and `explain` read before evaluating: the catalogs (compiled as a portfolio, with
/// their diagnostics), the receipts (any format), the app to evaluate and the environments
/// accepted. Diagnostics and import warnings collect in ``errorText`` for standard error.
struct EvaluationInputs {
    var portfolio: Portfolio
    var app: String
    var receipts: [ParsedReceipt]
    var catalogDiagnostics: [Diagnostic]
    var errorText: String
    var json: Bool
    var options: Options

    /// A failure before evaluation, as the command's output.
    struct Failed: Error {
        var output: CommandOutput
    }

    /// Fails when standard input (`-`) is given as more than one receipt.
    ///
    /// - Throws: ``UsageError``.
    static func refuseStandardInputTwice(_ arguments: ParsedArguments) throws(UsageError) {
        if arguments.texts(SharedOptions.receipt).filter({ $0 == "-" }).count > 1 {
            throw UsageError(message: "standard input (`-`) can be read only once")
        }
    }

    /// The options of a command that answers one customer in text or `--format json`, whether it
    /// prints JSON, and its inputs loaded (or the output that says why they could not be).
    static func load(
        _ arguments: ParsedArguments, environment: CommandEnvironment
    ) throws(UsageError) -> (options: Options, json: Bool, loaded: Result<EvaluationInputs, Failed>) {
        let json = (try arguments.value(SharedOptions.format) ?? .text) == .json
        let options = try Options(arguments, environment: environment)
        return (options, json, load(arguments, options, json: json, environment: environment))
    }

    /// Loads the `--catalog`, `--receipt` and `--environment` options of a scanned command line.
    static func load(
        _ arguments: ParsedArguments, _ options: Options, json: Bool, environment: CommandEnvironment
    ) -> Result<EvaluationInputs, Failed> {
        let (appOption, diagnostics, verify) = (options.app, options.diagnostics, options.verify)
        var errorText = ""
        let catalogs = CatalogArguments.compile(arguments.texts(SharedOptions.catalog))
        let (compilation, unreadable, catalogDiagnostics) = (catalogs.compilation, catalogs.unreadable, catalogs.diagnostics)
        errorText += diagnostics.emit(catalogDiagnostics)

        var receipts: [ParsedReceipt] = []
        var receiptErrors: [Diagnostic] = []
        var unverified: Set<ReceiptFormat> = []
        var stripeVerified = false
        let compiled = compilation.compiledCatalogs
        for path in arguments.texts(SharedOptions.receipt) {
            do {
                for loaded in try ReceiptFiles.load(
                    path, app: appOption, defaultApp: { store, products in Self.onlyApp(of: compiled, selling: store, products: products) },
                    token: options.token,
                    verify: verify, stripe: options.stripe, standardInput: environment.readStandardInput)
                {
                    receipts.append(loaded.receipt)
                    if loaded.stripeVerified { stripeVerified = true }
                    if let format = loaded.unverified { unverified.insert(format) }
                    for warning in loaded.warnings { errorText += "\(path == "-" ? "<stdin>" : path): warning: \(warning)\n" }
                }
            } catch {
                receiptErrors.append(error.diagnostic)
            }
        }
        errorText = ReceiptFiles.notices(unverified) + errorText
        let app = appOption ?? receipts.first?.app ?? ""
        func failed(_ diagnostics: [Diagnostic], _ line: String, exitCode: Int32 = CommandOutput.invalidInput) -> Result<Self, Failed> {
            .failure(
                Failed(
                    output: failure(
                        diagnostics, line, exitCode: exitCode, errorText: errorText,
                        catalogDiagnostics: catalogDiagnostics, json: json)))
        }
        guard receiptErrors.isEmpty else {
            return failed(receiptErrors, "\(receiptErrors.count) receipt\(receiptErrors.count == 1 ? "" : "s") rejected")
        }
        if options.stripe != nil, !stripeVerified {
            return failed(
                [], "\(StripeSignatureOption.signature.quoted) verifies Stripe's data, and no receipt is Stripe's", exitCode: CommandOutput.misuse)
        }
        // Evaluate when the app's catalog (and those it refers to) compiled, whatever else failed.
        guard let portfolio = compilation.portfolio(evaluating: app, missingSources: !unreadable.isEmpty) else {
            let errors = catalogDiagnostics.filter(\.isError)
            if catalogs.nothingRead {
                return failed(errors, "no catalog could be read (\(unreadable.count) path\(unreadable.count == 1 ? "" : "s") given)")
            }
            if !errors.isEmpty {
                return failed(errors, "the catalogs of `\(app)` have errors: \(EntitleCommand.summary(catalogDiagnostics))")
            }
            return failed(
                [
                    missingCatalog(
                        app: app, given: appOption != nil, receipts: receipts,
                        paths: arguments.texts(SharedOptions.receipt), catalogs: compilation.compiledCatalogs.map(\.app))
                ],
                "nothing to evaluate", exitCode: CommandOutput.misuse)
        }
        return .success(
            EvaluationInputs(
                portfolio: portfolio, app: app, receipts: receipts, catalogDiagnostics: catalogDiagnostics, errorText: errorText,
                json: json, options: options))
    }

    /// The app of store data that names none (Stripe's objects, renewal info alone), without
    /// `--app`: the portfolio's one app, else its one app with products in that store.
    static func onlyApp(of catalogs: [CompiledCatalog], selling store: Store, products: [String] = []) -> String? {
        if catalogs.count == 1 { return catalogs[0].app }
        let selling = catalogs.filter { catalog in catalog.products.contains { $0.store == store } }
        if selling.count == 1 { return selling[0].app }
        guard !products.isEmpty else { return nil }
        let named = Set(products)
        let sellingThem = selling.filter { catalog in catalog.products.contains { $0.store == store && named.contains($0.id) } }
        return sellingThem.count == 1 ? sellingThem[0].app : nil
    }

    /// What `check` and `explain` do once their options are read: load the inputs
    /// (``load(_:_:json:environment:)``), evaluate them with `evaluate` (``evaluate()`` or ``explain()``), note the errors of other
    /// catalogs and write the value with `output`. Or the output of what failed: an evaluation
    /// error is misuse, with `nothing` ("nothing to evaluate") as its summary line.
    static func run<Value>(
        _ arguments: ParsedArguments, _ options: Options, json: Bool, environment: CommandEnvironment, nothing: String,
        _ evaluate: (EvaluationInputs) -> () throws(PortfolioError) -> Value, output: (Value, EvaluationInputs) -> CommandOutput
    ) -> CommandOutput {
        var inputs: EvaluationInputs
        switch load(arguments, options, json: json, environment: environment) {
        case .success(let loaded): inputs = loaded
        case .failure(let failed): return failed.output
        }
        let value: Value
        do {
            value = try evaluate(inputs)()
        } catch {
            return inputs.failure([error.diagnostic], nothing, exitCode: CommandOutput.misuse)
        }
        inputs.noteOtherCatalogErrors()
        return output(value, inputs)
    }

    /// The entitlements of the app at the instant.
    func evaluate() throws(PortfolioError) -> Entitlements {
        try portfolio.evaluate(app: app, receipts: receipts, at: options.at, options: options.evaluation)
    }

    /// Why the app has what it has at the instant.
    func explain() throws(PortfolioError) -> Explanation {
        try portfolio.explain(app: app, receipts: receipts, at: options.at, options: options.evaluation)
    }

    /// The error for an app without a catalog. Without `--app` the app is the first receipt's:
    /// when that receipt is of another app (an upgrade's prerequisite app, given first) and a
    /// later receipt's app has a catalog, the help names `--app` with the first such app.
    static func missingCatalog(app: String, given: Bool, receipts: [ParsedReceipt], paths: [String], catalogs: [String]) -> Diagnostic {
        let error = PortfolioError(missingApp: app, known: catalogs)
        guard !given else { return error.diagnostic }
        let known = Set(catalogs)
        guard let meant = receipts.first(where: { known.contains($0.app) })?.app else { return error.diagnostic }
        let first = paths.first.map { $0 == "-" ? "<stdin>" : $0 } ?? "the first receipt"
        let help =
            "without `\(SharedOptions.app.name)`, the app evaluated is the first receipt's; to evaluate `\(Diagnostic.excerpt(meant))`, "
            + "whose catalog is given, add `\(SharedOptions.app.name) \(Diagnostic.excerpt(meant))`"
        return Diagnostic(
            severity: .error, code: .unknownApp,
            message: "no catalog for app `\(Diagnostic.excerpt(app))`, the app of the first receipt (`\(first)`)", help: help)
    }

    /// The output of a failure: the diagnostics on standard error (and as JSON on standard output
    /// with `--format json`), after everything noted so far.
    func failure(_ diagnostics: [Diagnostic], _ line: String, exitCode: Int32 = CommandOutput.invalidInput) -> CommandOutput {
        Self.failure(diagnostics, line, exitCode: exitCode, errorText: errorText, catalogDiagnostics: catalogDiagnostics, json: json)
    }

    private static func failure(
        _ diagnostics: [Diagnostic], _ line: String, exitCode: Int32, errorText: String, catalogDiagnostics: [Diagnostic], json: Bool
    ) -> CommandOutput {
        CommandOutput(
            exitCode: exitCode, standardOutput: json ? EntitleCommand.jsonErrors(diagnostics) : "",
            standardError: errorText + EntitleCommand.render(diagnostics.filter { !catalogDiagnostics.contains($0) })
                + "entitle: \(line)\n")
    }

    /// Notes that other catalogs of the portfolio have errors that do not affect the app.
    mutating func noteOtherCatalogErrors() {
        if catalogDiagnostics.contains(where: \.isError) {
            errorText += "entitle: other catalogs have errors (\(EntitleCommand.summary(catalogDiagnostics))); `\(app)` is not affected\n"
        }
    }
}

extension EvaluationInputs {
    /// The options `check` and `explain` share, read in this order (after `--format`).
    struct Options {
        var diagnostics: DiagnosticsOption
        var verify: VerifyOption?
        var app: String?
        var at: Instant
        /// The environments, accounts and storefront evaluated with: `--environment`, `--account`
        /// and `--storefront`, each read once, here.
        var evaluation: EvaluationOptions
        /// The purchase token of Play resources read alone, `--token`.
        var token: String?
        /// `--stripe-secret` and `--stripe-signature`, for the commands that declare them (`check`).
        var stripe: StripeSignatureOption?

        init(_ arguments: ParsedArguments, environment: CommandEnvironment) throws(UsageError) {
            diagnostics = try DiagnosticsOption(arguments)
            let at = try arguments.value(SharedOptions.at) ?? environment.now()
            verify = try VerifyOption.parse(arguments, unsignedAt: at)
            app = try arguments.value(SharedOptions.app)
            self.at = at
            evaluation = try Self.evaluation(arguments)
            token = try arguments.value(SharedOptions.token)
        }

        /// The evaluation options a command's `--environment`, `--account` and `--storefront` say
        /// (those it declares).
        static func evaluation(_ arguments: ParsedArguments) throws(UsageError) -> EvaluationOptions {
            let environments = try arguments.values(SharedOptions.environment)
            return EvaluationOptions(
                environments: environments.isEmpty ? nil : Set(environments), accounts: try arguments.values(SharedOptions.account),
                storefront: try arguments.value(SharedOptions.storefront))
        }
    }
}
