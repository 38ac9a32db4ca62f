import CAllocationCounter
import Entitle
import EntitleWorkloads
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The benchmark of issue 3: every figure is a median of repeated rounds in this one process, and
/// every comparison is a ratio of two figures measured in the same run.
struct Benchmark {
    let stopwatch: Stopwatch
    let quick: Bool
    var rows: [Row] = []
    var figures: [(String, Double)] = []

    struct Row {
        var section: String
        var name: String
        var value: String
    }

    init(quick: Bool) {
        self.quick = quick
        stopwatch = quick ? Stopwatch(rounds: 3, roundTime: 0.02) : Stopwatch(rounds: 7, roundTime: 0.15)
    }

    static let at = Instant(rfc3339: "2025-09-01T00:00:00Z")!

    mutating func record(_ section: String, _ name: String, _ value: String, key: String? = nil, number: Double? = nil) {
        rows.append(Row(section: section, name: name, value: value))
        if let key, let number { figures.append((key, number)) }
    }

    /// Records a ratio, written `1.23x`, under `key`.
    mutating func ratio(_ section: String, _ name: String, _ value: Double, key: String) {
        record(section, name, String(format: "%.2fx", value), key: key, number: value)
    }

    static func compile(_ json: String, name: String = "bench.json") -> CompiledCatalog {
        let compilation = Portfolio.compile([CatalogSource(name: name, data: Data(json.utf8))])
        guard let catalog = compilation.portfolio?.catalogs.first else {
            fatalError("generated catalog does not compile: \(compilation.errors.map(\.description))")
        }
        return catalog
    }

    // MARK: 6. Memory of compiling

    /// Peak memory of compiling the 10,000-product catalog, measured in a child process that does
    /// nothing else, so nothing the benchmark did before raises the peak first.
    mutating func compileMemory() {
        var generator = WorkloadGenerator(seed: 10_000)
        let json = Data(generator.catalog(products: 10_000).json.utf8)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("entitle-bench-\(getpid()).json")
        try! json.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--compile-peak", file.path]
        let pipe = Pipe()
        child.standardOutput = pipe
        do {
            try child.run()
        } catch {
            record("6. memory", "peak memory compiling 10,000 products", "not measured: \(error)")
            return
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let numbers = output.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard numbers.count == 4 else {
            record("6. memory", "peak memory compiling 10,000 products", "not measured: \(output)")
            return
        }
        let (before, after, allocated, allocations) = (numbers[0], numbers[1], numbers[2], numbers[3])
        let section = "6. memory"
        record(
            section, "peak resident memory compiling 10,000 products (\(json.count / 1024) KB JSON)",
            String(format: "%.1f MiB (%.1f MiB before compiling)", after / 1_048_576, before / 1_048_576),
            key: "compilePeakResidentMiB10000", number: after / 1_048_576)
        record(
            section, "peak growth while compiling", String(format: "%.1f MiB", (after - before) / 1_048_576),
            key: "compilePeakGrowthMiB10000", number: (after - before) / 1_048_576)
        if allocations > 0 {
            record(
                section, "bytes allocated while compiling (most freed again)",
                String(format: "%.1f MiB in %.0f allocations", allocated / 1_048_576, allocations),
                key: "compileAllocatedMiB10000", number: allocated / 1_048_576)
        }
    }

    /// The child side of ``compileMemory()``: prints peak resident bytes before and after compiling,
    /// bytes allocated and allocation count.
    static func compilePeakChild(path: String) -> String {
        let data = FileManager.default.contents(atPath: path) ?? Data()
        let before = peakResidentBytes()
        entitle_allocation_counting(1)
        let compilation = Portfolio.compile([CatalogSource(name: path, data: data)])
        entitle_allocation_counting(0)
        let after = peakResidentBytes()
        Sink.consume(compilation.portfolio?.catalogs.count ?? 0)
        return "\(before) \(after) \(entitle_allocation_bytes()) \(entitle_allocation_count())\n"
    }

    // MARK: 1 and 2. End to end against the JSONDecoder baseline

    mutating func endToEnd() {
        var generator = WorkloadGenerator(seed: 1)
        let shape = generator.catalog(products: 50)
        let catalog = Benchmark.compile(shape.json)
        let decoder = BaselineReceipt.makeDecoder()
        for size in [1, 20, 200, 2000] {
            let count = size >= 2000 ? 4 : size >= 200 ? 16 : 64
            let receipts = (0..<count).map { _ in Data(generator.receipt(for: shape, transactions: size).utf8) }
            let bytes = receipts.reduce(0) { $0 + $1.count } / receipts.count
            var next = 0
            let times = stopwatch.compare([
                {
                    next = (next + 1) % receipts.count
                    let result = try! catalog.evaluate([ParsedReceipt(json: receipts[next])], at: Benchmark.at)
                    return result.warnings.count + (result.isEnabled("feature.0") ? 1 : 0)
                },
                {
                    next = (next + 1) % receipts.count
                    let receipt = try! decoder.decode(BaselineReceipt.self, from: receipts[next]).receipt
                    let result = catalog.evaluate([receipt], at: Benchmark.at)
                    return result.warnings.count + (result.isEnabled("feature.0") ? 1 : 0)
                },
            ])
            let (fast, baseline) = (times[0], times[1])
            let section = "1. end to end (50-product catalog)"
            record(
                section, "\(size) transactions (\(bytes) bytes): entitle",
                String(format: "%.0f receipts/s, %.0f MB/s, %.2f µs", 1 / fast, Double(bytes) / fast / 1e6, fast * 1e6),
                key: "endToEndReceiptsPerSecond\(size)", number: 1 / fast)
            record(
                section, "\(size) transactions: JSONDecoder (.iso8601) + same evaluator",
                String(format: "%.0f receipts/s, %.0f MB/s, %.2f µs", 1 / baseline, Double(bytes) / baseline / 1e6, baseline * 1e6),
                key: "baselineReceiptsPerSecond\(size)", number: 1 / baseline)
            record(
                "2. speedup over the baseline", "\(size) transactions", String(format: "%.1fx", baseline / fast),
                key: "speedupVsJSONDecoder\(size)", number: baseline / fast)
            figures.append(("endToEndMBPerSecond\(size)", Double(bytes) / fast / 1e6))
        }
    }

    // MARK: 3. Evaluation alone against the hand-written function

    mutating func evaluationAlone() {
        let catalog = Benchmark.compile(
            String(
                decoding: FileManager.default.contents(atPath: "products/diagrams.json")
                    ?? Data(GeneratedCatalog.diagrams.json.utf8), as: UTF8.self), name: "diagrams.json")
        var generator = WorkloadGenerator(seed: 3)
        let datas = (0..<64).map { _ in Data(generator.receipt(for: .diagrams, transactions: 20).utf8) }
        let parsed = datas.map { try! ParsedReceipt(json: $0) }
        let values = parsed.map(\.receipt)
        var next = 0
        let times = stopwatch.compare([
            {
                next = (next + 1) % parsed.count
                let result = catalog.evaluate([parsed[next]], at: Benchmark.at)
                return HandWrittenDiagrams.result(from: result).stencils == 0 ? 0 : 1
            },
            {
                next = (next + 1) % values.count
                let result = catalog.evaluate([values[next]], at: Benchmark.at)
                return HandWrittenDiagrams.result(from: result).stencils == 0 ? 0 : 1
            },
            {
                next = (next + 1) % values.count
                return HandWrittenDiagrams.evaluate(values[next], at: Benchmark.at).stencils == 0 ? 0 : 1
            },
        ])
        let (compiled, compiledFromValues, handWritten) = (times[0], times[1], times[2])
        let section = "3. evaluation alone (products/diagrams.json, 20 transactions)"
        record(
            section, "compiled evaluator on a ParsedReceipt", String(format: "%.2f µs", compiled * 1e6),
            key: "evaluationMicroseconds20", number: compiled * 1e6)
        record(
            section, "compiled evaluator on a Receipt value (includes converting it)", String(format: "%.2f µs", compiledFromValues * 1e6),
            key: "evaluationFromReceiptValueMicroseconds20", number: compiledFromValues * 1e6)
        record(
            section, "hand-written Swift for this catalog, on a Receipt value", String(format: "%.2f µs", handWritten * 1e6),
            key: "handWrittenMicroseconds20", number: handWritten * 1e6)
        ratio(section, "compiled / hand-written", compiled / handWritten, key: "evaluationVsHandWritten")
        ratio(
            section, "compiled from a Receipt value / hand-written", compiledFromValues / handWritten, key: "evaluationFromReceiptValueVsHandWritten")
    }

    // MARK: 4. Scaling

    mutating func scaling() {
        let section = "4. scaling"
        var evaluation: [Int: Double] = [:]
        var compile: [Int: Double] = [:]
        var evaluations: [() -> Int] = []
        let sizes = [10, 100, 1000, 10_000]
        for size in sizes {
            var generator = WorkloadGenerator(seed: UInt64(size))
            let shape = generator.catalog(products: size)
            let json = shape.json
            let data = Data(json.utf8)
            let compileWatch = Stopwatch(rounds: stopwatch.rounds, roundTime: size >= 10_000 ? stopwatch.roundTime * 2 : stopwatch.roundTime)
            compile[size] = compileWatch.secondsPerCall {
                Portfolio.compile([CatalogSource(name: "scale.json", data: data)]).diagnostics.count
            }
            let catalog = Benchmark.compile(json)
            let receipts = (0..<32).map { _ in try! ParsedReceipt(json: Data(generator.receipt(for: shape, transactions: 20).utf8)) }
            var next = 0
            evaluations.append {
                next = (next + 1) % receipts.count
                return catalog.evaluate([receipts[next]], at: Benchmark.at).warnings.count
            }
            record(
                section, "compile a \(size)-product catalog (\(data.count / 1024) KB)",
                String(format: "%.2f ms, %.2f µs per product", compile[size]! * 1e3, compile[size]! * 1e6 / Double(size)))
        }
        for (size, time) in zip(sizes, stopwatch.compare(evaluations)) {
            evaluation[size] = time
            record(section, "evaluate 20 transactions, \(size)-product catalog", String(format: "%.2f µs", time * 1e6))
        }
        ratio(section, "evaluation time, 10,000 / 10 products", evaluation[10_000]! / evaluation[10]!, key: "catalogScaling10To10000")
        let perProduct10 = compile[10]! / 10
        let perProduct10000 = compile[10_000]! / 10_000
        ratio(section, "compile time per product, 10,000 / 10 products", perProduct10000 / perProduct10, key: "compilePerProductScaling10To10000")

        var generator = WorkloadGenerator(seed: 4)
        let shape = generator.catalog(products: 50)
        let catalog = Benchmark.compile(shape.json)
        var byTransactions: [Int: Double] = [:]
        var endToEnd: [Int: Double] = [:]
        for size in [1, 20, 200, 2000] {
            let datas = (0..<(size >= 2000 ? 4 : 16)).map { _ in Data(generator.receipt(for: shape, transactions: size).utf8) }
            let receipts = datas.map { try! ParsedReceipt(json: $0) }
            var next = 0
            let times = stopwatch.compare([
                {
                    next = (next + 1) % receipts.count
                    return catalog.evaluate([receipts[next]], at: Benchmark.at).warnings.count
                },
                {
                    next = (next + 1) % datas.count
                    return try! catalog.evaluate([ParsedReceipt(json: datas[next])], at: Benchmark.at).warnings.count
                },
            ])
            (byTransactions[size], endToEnd[size]) = (times[0], times[1])
            record(
                section, "\(size) transactions: evaluate / decode and evaluate",
                String(format: "%.2f µs / %.2f µs", byTransactions[size]! * 1e6, endToEnd[size]! * 1e6))
        }
        record(
            section, "decode and evaluate, 2,000 / 20 transactions", String(format: "%.1fx", endToEnd[2000]! / endToEnd[20]!),
            key: "transactions2000Over20", number: endToEnd[2000]! / endToEnd[20]!)
        record(
            section, "evaluate alone, 2,000 / 20 transactions", String(format: "%.1fx", byTransactions[2000]! / byTransactions[20]!),
            key: "evaluationTransactions2000Over20", number: byTransactions[2000]! / byTransactions[20]!)
        renewalScaling()
        allowanceScaling()
    }

    /// One subscription chain of N transactions with N renewal entries carrying a grace period:
    /// grace used to scan the whole chain per renewal (quadratic); linear work makes the ratio
    /// of 20,000 to 20 about 1,000.
    mutating func renewalScaling() {
        let section = "4. scaling"
        let diagrams = Benchmark.compile(GeneratedCatalog.diagrams.json)
        var perSize: [Int: Double] = [:]
        let sizes = [20, 200, 2_000, 20_000]
        var bodies: [() -> Int] = []
        for size in sizes {
            let data = Data(WorkloadGenerator.renewalChain(transactions: size).utf8)
            bodies.append { try! diagrams.evaluate([ParsedReceipt(json: data)], at: Benchmark.at).warnings.count }
        }
        for (size, time) in zip(sizes, stopwatch.compare(bodies)) {
            perSize[size] = time
            record(
                section, "one chain of \(size) transactions and \(size) renewals: decode and evaluate",
                String(format: "%.2f µs, %.3f µs per transaction", time * 1e6, time * 1e6 / Double(size)))
        }
        record(
            section, "renewal chain, 20,000 / 20 transactions", String(format: "%.0fx", perSize[20_000]! / perSize[20]!),
            key: "renewalChain20000Over20", number: perSize[20_000]! / perSize[20]!)
    }

    // MARK: 5. Concurrency

    mutating func concurrency() {
        var generator = WorkloadGenerator(seed: 5)
        let shape = generator.catalog(products: 50)
        let catalog = Benchmark.compile(shape.json)
        let receipts = (0..<64).map { _ in Data(generator.receipt(for: shape, transactions: 20).utf8) }
        let perThread = quick ? 4_000 : 40_000
        // Each thread gets its own copies of the receipt bytes, as each request in a service has its
        // own; only the compiled catalog is shared.
        let copies = (0..<2).map { _ in receipts.map { Data($0.map { $0 }) } }
        func round(threads: Int) -> Double {
            measureThreads(threads: threads, perThread: perThread) { thread, iteration in
                let data = copies[thread][iteration % receipts.count]
                return try! catalog.evaluate([ParsedReceipt(json: data)], at: Benchmark.at).warnings.count
            }
        }
        // The control: the same work, but each thread with a catalog compiled for it alone. If
        // sharing one catalog cost anything, this would scale better than `round`.
        let privateCatalogs = [catalog, Benchmark.compile(shape.json)]
        func privateRound(threads: Int) -> Double {
            measureThreads(threads: threads, perThread: perThread) { thread, iteration in
                let data = copies[thread][iteration % receipts.count]
                return try! privateCatalogs[thread].evaluate([ParsedReceipt(json: data)], at: Benchmark.at).warnings.count
            }
        }
        // The machine's own ceiling, measured alike: threads that share nothing and only compute.
        func ceiling(threads: Int) -> Double {
            measureThreads(threads: threads, perThread: perThread) { thread, iteration in
                var value = UInt64(truncatingIfNeeded: iteration &+ thread) | 1
                for _ in 0..<2_000 { value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
                return Int(truncatingIfNeeded: value >> 60)
            }
        }
        // A second yardstick shaped like parsing: a branchy byte scan over each thread's own copy.
        func scan(threads: Int) -> Double {
            measureThreads(threads: threads, perThread: perThread) { thread, iteration in
                copies[thread][iteration % receipts.count].withUnsafeBytes { raw in
                    var quotes = 0
                    var digits = 0
                    for byte in raw {
                        if byte == UInt8(ascii: "\"") { quotes += 1 } else if byte &- UInt8(ascii: "0") < 10 { digits += 1 }
                    }
                    return quotes ^ digits
                }
            }
        }
        // Rounds alternate one and two threads so a disturbance affects both alike.
        var scanOnes: [Double] = []
        var scanTwos: [Double] = []
        var ones: [Double] = []
        var twos: [Double] = []
        var privateTwos: [Double] = []
        var ceilingOnes: [Double] = []
        var ceilingTwos: [Double] = []
        for _ in 0..<stopwatch.rounds {
            ones.append(round(threads: 1))
            twos.append(round(threads: 2))
            privateTwos.append(privateRound(threads: 2))
            ceilingOnes.append(ceiling(threads: 1))
            ceilingTwos.append(ceiling(threads: 2))
            scanOnes.append(scan(threads: 1))
            scanTwos.append(scan(threads: 2))
        }
        let scanning = Stopwatch.median(scanTwos) / Stopwatch.median(scanOnes)
        let one = Stopwatch.median(ones)
        let two = Stopwatch.median(twos)
        let privateTwo = Stopwatch.median(privateTwos)
        let machine = Stopwatch.median(ceilingTwos) / Stopwatch.median(ceilingOnes)
        let section = "5. concurrency (one shared compiled catalog, 20 transactions)"
        record(section, "1 thread", String(format: "%.0f receipts/s", one), key: "oneThreadReceiptsPerSecond", number: one)
        record(section, "2 threads", String(format: "%.0f receipts/s", two), key: "twoThreadReceiptsPerSecond", number: two)
        ratio(section, "2 threads / 1 thread", two / one, key: "twoThreadSpeedup")
        ratio(section, "control: 2 threads, each with its own catalog / 1 thread", privateTwo / one, key: "twoThreadPrivateCatalogSpeedup")
        ratio(section, "shared catalog / private catalogs, 2 threads", two / privateTwo, key: "sharedOverPrivateCatalog")
        ratio(section, "the machine: 2 / 1 threads of a multiply chain (no memory)", machine, key: "machineTwoThreadArithmetic")
        ratio(section, "the machine: 2 / 1 threads of a branchy byte scan (own data)", scanning, key: "machineTwoThreadByteScan")
    }

    /// Work items per second with `threads` threads, each running `perThread` calls of `body`.
    ///
    /// The workers are long-lived, as a service's are: started once, warmed up, then released
    /// round by round. Threads started per round spent much of it faulting in fresh heap pages.
    private func measureThreads(threads: Int, perThread: Int, _ body: @escaping @Sendable (Int, Int) -> Int) -> Double {
        let pool = WorkerPool(threads: 2, body: body)
        pool.run(threads: threads, iterations: max(1, perThread / 4))  // warm-up
        let start = Stopwatch.now()
        pool.run(threads: threads, iterations: perThread)
        let seconds = Double(Stopwatch.now() - start) / 1e9
        pool.stop()
        return Double(threads * perThread) / seconds
    }

    // MARK: 6. Memory per evaluation

    mutating func evaluationMemory() {
        guard entitle_allocation_counter_available() != 0 else {
            record("6. memory", "allocations per evaluation", "not measurable on this platform")
            return
        }
        var generator = WorkloadGenerator(seed: 6)
        let shape = generator.catalog(products: 50)
        let catalog = Benchmark.compile(shape.json)
        let datas = (0..<64).map { _ in Data(generator.receipt(for: shape, transactions: 20).utf8) }
        let parsed = datas.map { try! ParsedReceipt(json: $0) }
        func measure(_ body: (Int) -> Int) -> (count: Double, bytes: Double) {
            let iterations = 2_000
            entitle_allocation_counting(1)
            let count = entitle_allocation_count()
            let bytes = entitle_allocation_bytes()
            for iteration in 0..<iterations { Sink.consume(body(iteration)) }
            let result = (
                Double(entitle_allocation_count() - count) / Double(iterations),
                Double(entitle_allocation_bytes() - bytes) / Double(iterations)
            )
            entitle_allocation_counting(0)
            return result
        }
        let endToEnd = measure { try! catalog.evaluate([ParsedReceipt(json: datas[$0 % datas.count])], at: Benchmark.at).warnings.count }
        let evaluation = measure { catalog.evaluate([parsed[$0 % parsed.count]], at: Benchmark.at).warnings.count }
        record(
            "6. memory", "decode and evaluate 20 transactions",
            String(format: "%.1f allocations, %.0f bytes", endToEnd.count, endToEnd.bytes),
            key: "endToEndBytesAllocated20", number: endToEnd.bytes)
        record(
            "6. memory", "evaluate a parsed 20-transaction receipt",
            String(format: "%.1f allocations, %.0f bytes", evaluation.count, evaluation.bytes),
            key: "evaluationBytesAllocated20", number: evaluation.bytes)
        figures.append(("endToEndAllocations20", endToEnd.count))
        figures.append(("evaluationAllocations20", evaluation.count))
    }

    static func peakResidentBytes() -> Int {
        #if canImport(Glibc)
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return usage.ru_maxrss * 1024
        #else
            return 0
        #endif
    }

    // MARK: Profiling

    /// Decodes and evaluates generated 20-transaction receipts `iterations` times.
    static func profileLoop(iterations: Int) -> Int {
        var generator = WorkloadGenerator(seed: 1)
        let shape = generator.catalog(products: 50)
        let catalog = compile(shape.json)
        let receipts = (0..<64).map { _ in Data(generator.receipt(for: shape, transactions: 20).utf8) }
        var total = 0
        for iteration in 0..<iterations {
            total &+= try! catalog.evaluate([ParsedReceipt(json: receipts[iteration % receipts.count])], at: at).warnings.count
        }
        return total
    }

    /// Section 3's compiled side (or its hand-written side) in a fixed loop, for `valgrind --tool=callgrind`.
    static func profileEvaluationLoop(iterations: Int, handWritten: Bool = false) -> Int {
        let catalog = compile(
            String(
                decoding: FileManager.default.contents(atPath: "products/diagrams.json")
                    ?? Data(GeneratedCatalog.diagrams.json.utf8), as: UTF8.self), name: "diagrams.json")
        var generator = WorkloadGenerator(seed: 3)
        let parsed = (0..<64).map { _ in try! ParsedReceipt(json: Data(generator.receipt(for: .diagrams, transactions: 20).utf8)) }
        var total = 0
        if handWritten {
            let values = parsed.map(\.receipt)
            for iteration in 0..<iterations {
                total &+= HandWrittenDiagrams.evaluate(values[iteration % values.count], at: at).stencils == 0 ? 0 : 1
            }
            return total
        }
        for iteration in 0..<iterations {
            let result = catalog.evaluate([parsed[iteration % parsed.count]], at: at)
            total &+= HandWrittenDiagrams.result(from: result).stencils == 0 ? 0 : 1
        }
        return total
    }

    // MARK: Report

    func table() -> String {
        var lines: [String] = []
        var sections: [String] = []
        for row in rows where !sections.contains(row.section) { sections.append(row.section) }
        let width = rows.map(\.name.count).max() ?? 0
        for section in sections.sorted() {
            lines += ["", section]
            for row in rows where row.section == section {
                lines.append("  " + row.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.value)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func json(machine: String) -> String {
        var members = [
            "  \"machine\": \"\(machine)\"", "  \"quick\": \(quick)",
            "  \"rounds\": \(stopwatch.rounds)", "  \"roundSeconds\": \(stopwatch.roundTime)",
        ]
        for (key, value) in figures {
            members.append("  \"\(key)\": \(value.isFinite ? String(format: "%.6g", value) : "null")")
        }
        return "{\n" + members.joined(separator: ",\n") + "\n}\n"
    }
}

/// Long-lived worker threads that run a body a given number of times when released.
final class WorkerPool: @unchecked Sendable {
    private let body: @Sendable (Int, Int) -> Int
    private let start: [DispatchSemaphore]
    private let done = DispatchSemaphore(value: 0)
    // Written by the releasing thread before signalling `start`, read by workers after waiting on
    // it: the semaphores order the accesses.
    private var iterations = 0
    private var stopping = false

    init(threads: Int, body: @escaping @Sendable (Int, Int) -> Int) {
        self.body = body
        start = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        for index in 0..<threads {
            Thread { [self] in self.work(index) }.start()
        }
    }

    private func work(_ index: Int) {
        while true {
            start[index].wait()
            if stopping { return }
            var total = 0
            for iteration in 0..<iterations { total &+= body(index, iteration) }
            Sink.consume(total)
            done.signal()
        }
    }

    /// Releases `threads` workers for `iterations` calls each and waits for them.
    func run(threads: Int, iterations: Int) {
        self.iterations = iterations
        for index in 0..<threads { start[index].signal() }
        for _ in 0..<threads { done.wait() }
    }

    func stop() {
        stopping = true
        for semaphore in start { semaphore.signal() }
    }
}
