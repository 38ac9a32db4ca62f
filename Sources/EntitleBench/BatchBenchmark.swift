import Entitle
import EntitleCommandLine
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `entitle-bench --batch`: customers per second of `check --customers` and `diff --customers`
/// at one job and at every core, and what a customer costs in a batch against decoding and
/// evaluating its receipt alone.
///
/// A generated corpus of Diagrams customers (20 transactions each, ``CorpusWriter``) goes through
/// the commands as the executable runs them (`EntitleCommand.run`, lines written to `/dev/null`),
/// in alternating rounds (one job, all cores, one job, ...) so a disturbance of the machine lands
/// on both sides; each figure is the median of the rounds. The machine's load average is printed
/// before and after: other work on a shared machine takes cores from the run.
enum BatchBenchmark {
    static let at = "2025-07-01T00:00:00Z"
    static let laterAt = "2026-01-01T00:00:00Z"

    static func run(quick: Bool, json path: String?) -> Int32 {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let customers = quick ? 2_000 : 20_000
        let rounds = quick ? 3 : 5
        let loadBefore = loadAverage()
        print("entitle-bench --batch\(quick ? " --quick" : ""): \(cores) cores; load average \(loadBefore) (1, 5, 15 minutes)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entitle-batch-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let corpus = directory.appendingPathComponent("customers.jsonl").path
        let old = directory.appendingPathComponent("old")
        let new = directory.appendingPathComponent("new")
        do {
            try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: new, withIntermediateDirectories: true)
            let bytes = try CorpusWriter.write(path: corpus, customers: customers, transactions: 20, layout: .lines, seed: 20)
            print("corpus: \(customers) customers of 20 transactions, \(bytes / 1_000_000) MB of JSON Lines")
            // The old catalog is the example's; in the new one, the day pass grants nothing.
            let diagrams = try String(contentsOfFile: "products/diagrams.json", encoding: .utf8)
            let grants = "\"duration\": \"P1D\",\n      \"grants\": [\"pro\"]"
            guard diagrams.contains(grants) else {
                FileHandle.standardError.write(Data("entitle-bench: products/diagrams.json no longer has the day pass's grants\n".utf8))
                return 1
            }
            try diagrams.write(to: old.appendingPathComponent("diagrams.json"), atomically: true, encoding: .utf8)
            try diagrams.replacingOccurrences(of: grants, with: "\"duration\": \"P1D\", \"grants\": []")
                .write(to: new.appendingPathComponent("diagrams.json"), atomically: true, encoding: .utf8)
        } catch {
            FileHandle.standardError.write(Data("entitle-bench: cannot write the corpus (run from the package root): \(error)\n".utf8))
            return 1
        }

        guard let output = FileHandle(forWritingAtPath: "/dev/null") else { return 1 }
        let environment = CommandEnvironment(
            readStandardInput: { [] }, now: { Instant(rfc3339: at)! },
            writeStandardOutput: { text in try? output.write(contentsOf: Data(text.utf8)) })
        func check(jobs: Int) -> [String] {
            ["check", "--catalog", old.path, "--customers", corpus, "--at", at, "--jobs", String(jobs)]
        }
        func diff(jobs: Int) -> [String] {
            ["diff", old.path, new.path, "--customers", corpus, "--at", at, "--at", laterAt, "--jobs", String(jobs)]
        }
        // Decode and evaluate alone: each customer's receipt, as bytes, on one thread.
        let portfolio = Portfolio.compile([
            CatalogSource(name: "diagrams.json", data: FileManager.default.contents(atPath: old.appendingPathComponent("diagrams.json").path)!)
        ]).portfolio!
        let receipts = receiptBytes(corpus)
        let instant = Instant(rfc3339: at)!

        var samples: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for (name, arguments) in [
                ("check1", check(jobs: 1)), ("checkAll", check(jobs: cores)), ("diff1", diff(jobs: 1)), ("diffAll", diff(jobs: cores)),
            ] {
                let (wall, cpu) = measure {
                    let result = EntitleCommand.run(arguments, environment: environment)
                    precondition(result.exitCode == 0 || name.hasPrefix("diff"), "the batch failed: \(result.standardError)")
                }
                samples[name, default: []].append(wall)
                samples[name + "CPU", default: []].append(cpu)
            }
            let (alone, aloneCPU) = measure {
                var total = 0
                for data in receipts {
                    let receipt = try! ParsedReceipt(json: data)
                    total &+= try! portfolio.evaluate(app: receipt.app, receipts: [receipt], at: instant).warnings.count
                }
                Sink.consume(total)
            }
            samples["alone", default: []].append(alone)
            samples["aloneCPU", default: []].append(aloneCPU)
        }
        func median(_ key: String) -> Double { Stopwatch.median(samples[key] ?? []) }
        let perSecond = { (key: String) in Double(customers) / median(key) }
        // Costs are CPU time, which other work on the machine does not inflate as it does wall time.
        let aloneMicroseconds = median("aloneCPU") / Double(customers) * 1e6
        let checkMicroseconds = median("check1") / Double(customers) * 1e6
        let checkCPUMicroseconds = median("check1CPU") / Double(customers) * 1e6
        let diffCPUMicroseconds = median("diff1CPU") / Double(customers) * 1e6
        var figures: [(String, String, String, Double)] = [
            (
                "check --customers, 1 job", String(format: "%.0f customers/s", perSecond("check1")), "batchCheckOneJobCustomersPerSecond",
                perSecond("check1")
            ),
            (
                "check --customers, \(cores) jobs", String(format: "%.0f customers/s", perSecond("checkAll")), "batchCheckAllCoresCustomersPerSecond",
                perSecond("checkAll")
            ),
            (
                "check: \(cores) jobs / 1 job", String(format: "%.2fx", median("check1") / median("checkAll")), "batchCheckSpeedup",
                median("check1") / median("checkAll")
            ),
            (
                "diff --customers (2 instants), 1 job", String(format: "%.0f customers/s", perSecond("diff1")), "batchDiffOneJobCustomersPerSecond",
                perSecond("diff1")
            ),
            (
                "diff --customers (2 instants), \(cores) jobs", String(format: "%.0f customers/s", perSecond("diffAll")),
                "batchDiffAllCoresCustomersPerSecond", perSecond("diffAll")
            ),
            (
                "diff: \(cores) jobs / 1 job", String(format: "%.2fx", median("diff1") / median("diffAll")), "batchDiffSpeedup",
                median("diff1") / median("diffAll")
            ),
            (
                "decode and evaluate alone, CPU time per receipt", String(format: "%.2f µs", aloneMicroseconds), "batchDecodeEvaluateMicroseconds",
                aloneMicroseconds
            ),
            ("check, 1 job: wall time per customer", String(format: "%.2f µs", checkMicroseconds), "batchCheckWallMicroseconds", checkMicroseconds),
            (
                "check, 1 job: CPU time per customer (all threads)", String(format: "%.2f µs", checkCPUMicroseconds), "batchCheckCPUMicroseconds",
                checkCPUMicroseconds
            ),
            (
                "check: CPU per customer / decode and evaluate alone", String(format: "%.2fx", checkCPUMicroseconds / aloneMicroseconds),
                "batchCheckCostOverDecodeEvaluate", checkCPUMicroseconds / aloneMicroseconds
            ),
            (
                "diff, 1 job: CPU time per customer (4 evaluations)", String(format: "%.2f µs", diffCPUMicroseconds), "batchDiffCPUMicroseconds",
                diffCPUMicroseconds
            ),
        ]
        // How many cores the runs kept busy: on an idle machine near the jobs; lower when other
        // work takes cores, or when a thread waits for another.
        for (name, key) in [("check", "checkAll"), ("diff", "diffAll")] {
            let busy = median(key + "CPU") / median(key)
            figures.append(
                (
                    "\(name), \(cores) jobs: cores busy (CPU time / wall time)", String(format: "%.2f", busy),
                    "batch\(name == "check" ? "Check" : "Diff")CoresBusy", busy
                ))
        }
        figures.append(("load average after", loadAverage(), "", 0))
        let width = figures.map(\.0.count).max() ?? 0
        print("\nbatch (products/diagrams.json, \(customers) customers, median of \(rounds) rounds)")
        for (name, value, _, _) in figures { print("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value) }
        if let path {
            let members = figures.filter { !$0.2.isEmpty }.map { "  \"\($0.2)\": \(String(format: "%.6g", $0.3))" }
            let text =
                "{\n  \"machine\": \"\(cores) cores\",\n  \"loadAverageBefore\": \"\(loadBefore)\",\n  \"loadAverageAfter\": \"\(loadAverage())\",\n"
                + members.joined(separator: ",\n") + "\n}\n"
            do {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                FileHandle.standardError.write(Data("entitle-bench: cannot write \(path): \(error)\n".utf8))
                return 1
            }
            print("figures written to \(path)")
        }
        return 0
    }

    /// Wall and CPU seconds (every thread of the process) of `body`.
    static func measure(_ body: () -> Void) -> (wall: Double, cpu: Double) {
        let cpuBefore = cpuSeconds()
        let start = Stopwatch.now()
        body()
        return (Double(Stopwatch.now() - start) / 1e9, cpuSeconds() - cpuBefore)
    }

    static func cpuSeconds() -> Double {
        #if canImport(Glibc)
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
            return seconds(usage.ru_utime) + seconds(usage.ru_stime)
        #else
            return 0
        #endif
    }

    /// The load averages over 1, 5 and 15 minutes, as `uptime` shows them.
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
        return text.split(separator: " ").prefix(3).joined(separator: ", ")
    }

    /// Each customer's receipt bytes, from the corpus.
    static func receiptBytes(_ path: String) -> [Data] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).enumerated().compactMap { index, line in
            (try? CustomerLine(Data(line), name: path, line: index + 1))?.receipts.first
        }
    }
}
