import Entitle
import Foundation

/// `entitle check --customers PATH`: evaluates a customer corpus at one instant and prints one
/// JSON object per line, `{"customer": ID, ...the check JSON...}`, in corpus order; a customer
/// whose receipts cannot be read gets `{"customer": ID, "errors": [...]}` and the run goes on.
///
/// The corpus is streamed through a ``BatchPipeline``: read in chunks on one thread, evaluated
/// and written as JSON on `jobs` threads, and each chunk's lines printed as soon as the chunks
/// before it are, so memory holds a few chunks and the ids seen, whatever the corpus's size. An
/// id seen before is reported on its line, located, and only its first entry is evaluated, as
/// `diff` counts it.
enum BatchCheck {
    /// What `check --customers` was asked for.
    struct Request {
        var app: String?
        var at: Instant
        /// `--environment`, `--account` and `--storefront`.
        var evaluation = EvaluationOptions.all
        var verify: VerifyOption?
        /// The parts each line carries (`--fields`).
        var parts: Entitlements.JSONParts = .all
        /// Whether prose is left out (`--compact`).
        var compact = false
        /// Only this store's offers (`--store`).
        var offerStore: Store?
        /// A table (`--format csv`) instead of JSON Lines.
        var csv = false
        /// OFREP bulk responses (`--format ofrep`), one per line, instead of the check JSON.
        var ofrep = false
        /// Threads evaluating customers (`--jobs`).
        var jobs: Int
    }

    /// One customer's line in a chunk's output.
    struct Line: Sendable {
        var id: String
        var idIsInteger: Bool
        var identified: Bool
        var location: SourceLocation?
        var failed: Bool
        /// Where the line ends in the chunk's output (it starts where the previous one ends).
        var end: Int
    }

    /// A chunk's lines, written (as text on the worker's thread, so the thread that prints them
    /// only hands them on).
    struct Written: Sendable {
        var text: String
        var lines: [Line]
        var progress: Double?
    }

    static func run(
        _ arguments: ParsedArguments, request: Request, diagnostics option: DiagnosticsOption, environment: CommandEnvironment
    ) -> CommandOutput {
        let catalogs = CatalogArguments.compile(arguments.texts(SharedOptions.catalog))
        let diagnostics = catalogs.diagnostics
        var errorText = option.emit(diagnostics)
        guard let portfolio = catalogs.compilation.portfolio, catalogs.unreadable.isEmpty else {
            return CommandOutput(
                exitCode: CommandOutput.invalidInput, standardOutput: EntitleCommand.jsonErrors(diagnostics.filter(\.isError)),
                standardError: errorText + "entitle: the catalogs have errors: \(EntitleCommand.summary(diagnostics))\n")
        }
        if let app = request.app, portfolio.catalog(for: app) == nil {
            return EntitleCommand.misuse("\(PortfolioError(missingApp: app, known: portfolio.apps))", command: "check")
        }
        var corpus = CustomerCorpus.open(arguments.texts(CheckCommand.customers))
        corpus.verify = request.verify
        corpus.standardInput = environment.standardInputDescriptor
        errorText += EntitleCommand.render(corpus.problems)

        var output = ""
        var evaluated = 0
        var failed = 0
        var repeated = 0
        var ids = CustomerIdSet()
        var progress = BatchProgress(command: "entitle check", environment: environment)
        if request.csv {
            if let write = environment.writeStandardOutput { write(CSVTable.header) } else { output += CSVTable.header }
        }
        let readProblems = ProblemBox()
        let reader = corpus
        BatchPipeline<CustomerCorpus.Chunk, Written>(jobs: request.jobs).run(
            readChunks: { emit in readProblems.problems = reader.read(emit) },
            transform: { chunk in write(chunk, corpus: reader, portfolio: portfolio, request: request) },
            consume: { written in
                var text = written.text
                var start = 0
                var rewritten: [UInt8]?
                var bytes: [UInt8] = []  // the chunk's text as bytes, once a line must be rewritten
                for line in written.lines {
                    defer { start = line.end }
                    let kind = line.idIsInteger ? UInt8(ascii: "#") : UInt8(ascii: "\"")
                    if line.identified, !ids.insert(kind: kind, id: line.id) {
                        // One customer, one answer: the repeat's line says so instead.
                        repeated += 1
                        if rewritten == nil {
                            bytes = Array(text.utf8)
                            rewritten = Array(bytes[..<start])
                        }
                        let error = CustomerCorpus.repeated(id: line.id, location: line.location).diagnostic
                        if request.csv {
                            var row = ""
                            CSVTable.error(customer: line.id, error, to: &row)
                            rewritten!.append(contentsOf: row.utf8)
                        } else {
                            errorLine(id: line.id, idIsInteger: line.idIsInteger, error).appendCompact(to: &rewritten!)
                            rewritten!.append(UInt8(ascii: "\n"))
                        }
                        continue
                    }
                    if line.failed { failed += 1 } else { evaluated += 1 }
                    rewritten?.append(contentsOf: bytes[start..<line.end])
                }
                if let rewritten { text = String(decoding: rewritten, as: UTF8.self) }
                if let write = environment.writeStandardOutput { write(text) } else { output += text }
                progress.update(customers: evaluated + failed + repeated, fraction: written.progress)
            })
        progress.finish()
        errorText += EntitleCommand.render(readProblems.problems)
        let customers = evaluated + failed
        errorText +=
            "entitle: \(ImpactReport.count(customers)) customer\(customers == 1 ? "" : "s"): \(ImpactReport.count(evaluated)) evaluated, "
            + "\(ImpactReport.count(failed)) could not be"
            + (repeated == 0 ? "" : "; \(ImpactReport.count(repeated)) repeated id\(repeated == 1 ? "" : "s"): only the first entry counts")
            + "\n"
        let problem = failed > 0 || repeated > 0 || !corpus.problems.isEmpty || !readProblems.problems.isEmpty
        return CommandOutput(
            exitCode: problem ? CommandOutput.invalidInput : CommandOutput.success,
            standardOutput: output, standardError: errorText)
    }

    /// Reads, evaluates and writes the lines of one chunk (on a worker thread).
    static func write(_ chunk: CustomerCorpus.Chunk, corpus: CustomerCorpus, portfolio: Portfolio, request: Request) -> Written {
        var writer = JSONLineWriter()
        writer.bytes.reserveCapacity(chunk.items.count * 2_048)
        var lines: [Line] = []
        lines.reserveCapacity(chunk.items.count)
        var table = ""
        for item in chunk.items {
            let customer = corpus.load(item)
            var failed = false
            if request.csv {
                switch customer.receipts {
                case .failure(let error):
                    CSVTable.error(customer: customer.id, error.diagnostic, to: &table)
                    failed = true
                case .success(let receipts):
                    do throws(PortfolioError) {
                        let result = try portfolio.evaluate(
                            app: request.app ?? receipts.first?.app ?? "", receipts: receipts, at: request.at, options: request.evaluation)
                        CSVTable.rows(
                            result, customer: customer.id, parts: request.parts, compact: request.compact, offersOf: request.offerStore,
                            to: &table)
                    } catch {
                        CSVTable.error(customer: customer.id, error.diagnostic, to: &table)
                        failed = true
                    }
                }
                lines.append(
                    Line(
                        id: customer.id, idIsInteger: customer.idIsInteger, identified: customer.identified,
                        location: customer.location, failed: failed, end: table.utf8.count))
                continue
            }
            switch customer.receipts {
            case .failure(let error):
                writer.value(errorLine(id: customer.id, idIsInteger: customer.idIsInteger, error.diagnostic))
                failed = true
            case .success(let receipts):
                let evaluated = request.app ?? receipts.first?.app ?? ""
                do throws(PortfolioError) {
                    let result = try portfolio.evaluate(
                        app: evaluated, receipts: receipts, at: request.at, options: request.evaluation)
                    // Written straight into the chunk's bytes: `customer`, then the result's members.
                    writer.beginObject()
                    writer.key("customer")
                    if customer.idIsInteger, let number = Int64(customer.id) { writer.integer(number) } else { writer.string(customer.id) }
                    if request.ofrep {
                        result.writeOFREPFlags(to: &writer)
                    } else {
                        result.writeMembers(to: &writer, parts: request.parts, compact: request.compact, offersOf: request.offerStore)
                    }
                    writer.endObject()
                } catch {
                    writer.value(errorLine(id: customer.id, idIsInteger: customer.idIsInteger, error.diagnostic))
                    failed = true
                }
            }
            writer.newline()
            lines.append(
                Line(
                    id: customer.id, idIsInteger: customer.idIsInteger, identified: customer.identified,
                    location: customer.location, failed: failed, end: writer.bytes.count))
        }
        if request.csv { return Written(text: table, lines: lines, progress: chunk.progress) }
        return Written(text: String(decoding: writer.bytes, as: UTF8.self), lines: lines, progress: chunk.progress)
    }

    /// The id as the corpus wrote it: a whole number stays a number.
    static func idOutput(_ id: String, isInteger: Bool) -> JSONOutput {
        isInteger ? Int64(id).map(JSONOutput.integer) ?? .string(id) : .string(id)
    }

    /// `{"customer": ID, "errors": [ERROR]}`.
    static func errorLine(id: String, idIsInteger: Bool, _ error: Diagnostic) -> JSONOutput {
        .object([("customer", idOutput(id, isInteger: idIsInteger)), ("errors", .array([error.jsonOutput]))])
    }
}

/// Problems the reading thread found, handed to the calling thread once the pipeline is done
/// (the pipeline's lock orders the two).
final class ProblemBox: @unchecked Sendable {
    var problems: [Diagnostic] = []
}
