import Foundation

// entitle-bench: `swift run -c release entitle-bench [--quick] [--json FILE]`.
let usage = """
    usage: entitle-bench [--quick] [--json FILE]
           entitle-bench --files DIR [--json FILE]
           entitle-bench --batch [--quick] [--json FILE]
           entitle-bench --prove PRODUCTS [--depth N]
           entitle-bench --prove fixed [--depth N] [--products DIR]
           entitle-bench --write-corpus PATH --customers N [--transactions N] [--layout lines|directory] [--seed N]

    """
var arguments = Array(CommandLine.arguments.dropFirst())
var quick = false
var jsonPath: String?
var filesDirectory: String?
var batch = false
var corpusPath: String?
var corpusCustomers = 0
var corpusTransactions = 20
var corpusSeed: UInt64 = 20
var corpusLayout = CorpusWriter.Layout.lines
/// The value after an option, or the usage and exit 2.
@MainActor func value(_ option: String) -> String {
    guard let value = arguments.first else {
        FileHandle.standardError.write(Data("\(option) needs a value\n\(usage)".utf8))
        exit(2)
    }
    arguments.removeFirst()
    return value
}
/// A whole number after an option, or the usage and exit 2.
@MainActor func number(_ option: String) -> Int {
    guard let number = Int(value(option)), number >= 0 else {
        FileHandle.standardError.write(Data("\(option) takes a whole number\n\(usage)".utf8))
        exit(2)
    }
    return number
}
var proveProducts: Int?
var proveFixed = false
var proveDepth = 2
var productsPath = "products"
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--quick": quick = true
    case "--json": jsonPath = value(argument)
    case "--files": filesDirectory = value(argument)
    case "--batch": batch = true
    case "--write-corpus": corpusPath = value(argument)
    case "--customers": corpusCustomers = number(argument)
    case "--transactions": corpusTransactions = number(argument)
    case "--seed": corpusSeed = UInt64(number(argument))
    case "--layout":
        guard let layout = CorpusWriter.Layout(rawValue: value(argument)) else {
            FileHandle.standardError.write(Data("--layout is `lines` or `directory`\n\(usage)".utf8))
            exit(2)
        }
        corpusLayout = layout
    case "--prove" where arguments.first == "fixed":
        // The example catalogs and the seven-product catalog, each with a fixed change.
        proveFixed = true
        arguments.removeFirst()
    case "--products": productsPath = value(argument)
    case "--prove", "--depth":
        guard let value = arguments.first.flatMap({ Int($0) }), value > 0 else {
            FileHandle.standardError.write(Data(usage.utf8))
            exit(2)
        }
        if argument == "--prove" { proveProducts = value } else { proveDepth = value }
        arguments.removeFirst()
    case "--help", "-h":
        print(usage, terminator: "")
        exit(0)
    case "--profile":
        // Internal: a fixed loop of decode-and-evaluate for `valgrind --tool=callgrind`.
        print(Benchmark.profileLoop(iterations: Int(arguments.first ?? "") ?? 2_000))
        exit(0)
    case "--profile-evaluation":
        // Internal: section 3's loop (evaluation alone on products/diagrams.json) for callgrind.
        print(
            Benchmark.profileEvaluationLoop(
                iterations: Int(arguments.first ?? "") ?? 2_000,
                handWritten: arguments.dropFirst().first == "hand-written"))
        exit(0)
    case "--compile-peak":
        // Internal: the child process of the compile-memory figure.
        print(Benchmark.compilePeakChild(path: arguments.first ?? ""), terminator: "")
        exit(0)
    default:
        FileHandle.standardError.write(Data(("unknown argument `\(argument)`\n" + usage).utf8))
        exit(2)
    }
}
#if DEBUG
    FileHandle.standardError.write(Data("warning: a debug build; run `swift run -c release entitle-bench` for real figures\n".utf8))
#endif

if let corpusPath {
    do {
        let bytes = try CorpusWriter.write(
            path: corpusPath, customers: corpusCustomers, transactions: corpusTransactions,
            layout: corpusLayout, seed: corpusSeed)
        print("wrote \(corpusCustomers) customers of \(corpusTransactions) transactions to \(corpusPath) (\(bytes) bytes)")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("entitle-bench: cannot write \(corpusPath): \(error)\n".utf8))
        exit(1)
    }
}
if batch {
    exit(BatchBenchmark.run(quick: quick, json: jsonPath))
}
if proveFixed {
    exit(ProofBenchmark.runFixed(depth: proveDepth, products: productsPath))
}
if let proveProducts {
    exit(ProofBenchmark.run(products: proveProducts, depth: proveDepth))
}

if let filesDirectory {
    exit(
        FileBenchmark.run(
            directory: filesDirectory, json: jsonPath,
            stopwatch: quick ? Stopwatch(rounds: 3, roundTime: 0.02) : Stopwatch(rounds: 7, roundTime: 0.15)))
}

let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB"
print("entitle-bench\(quick ? " --quick" : ""): \(machine); each figure is the median of repeated rounds in this process")
var benchmark = Benchmark(quick: quick)
benchmark.compileMemory()
benchmark.endToEnd()
benchmark.evaluationAlone()
benchmark.scaling()
benchmark.concurrency()
benchmark.evaluationMemory()
benchmark.stores()
benchmark.replies()
print(benchmark.table(), terminator: "")
if let jsonPath {
    try benchmark.json(machine: machine).write(toFile: jsonPath, atomically: true, encoding: .utf8)
    print("figures written to \(jsonPath)")
}
