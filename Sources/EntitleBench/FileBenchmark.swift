import Entitle
import Foundation

/// `entitle-bench --files DIR --json FILE`: decode and decode-plus-evaluate times on fixed receipt
/// files, for comparing with other parsers on the same bytes (`../shared/perf-limit/compare.sh`).
///
/// DIR holds `manifest.txt` (lines `SIZE COUNT`), receipts `rSIZE-INDEX.json` and the catalog
/// `catalog-50.json`. For each size, the time per receipt of `ParsedReceipt(json:)` over all its
/// files, and of decoding and evaluating them against the catalog at a fixed instant: each the
/// median of rounds, as everywhere in the benchmark.
enum FileBenchmark {
    static let at = Instant(rfc3339: "2025-09-01T00:00:00Z")!

    static func run(directory: String, json path: String?, stopwatch: Stopwatch) -> Int32 {
        let root = URL(fileURLWithPath: directory)
        guard let manifest = try? String(contentsOf: root.appendingPathComponent("manifest.txt"), encoding: .utf8),
            let catalogData = try? Data(contentsOf: root.appendingPathComponent("catalog-50.json"))
        else {
            FileHandle.standardError.write(Data("entitle-bench: \(directory) needs manifest.txt and catalog-50.json\n".utf8))
            return 2
        }
        let compilation = Portfolio.compile([CatalogSource(name: "catalog-50.json", data: catalogData)])
        guard let catalog = compilation.portfolio?.catalogs.first else {
            FileHandle.standardError.write(Data("entitle-bench: catalog-50.json does not compile\n".utf8))
            return 1
        }
        var results: [(size: String, decode: Double, decodeEvaluate: Double)] = []
        for line in manifest.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let count = Int(parts[1]) else { continue }
            let size = String(parts[0])
            var receipts: [Data] = []
            for index in 0..<count {
                guard let data = try? Data(contentsOf: root.appendingPathComponent("r\(size)-\(index).json")) else {
                    FileHandle.standardError.write(Data("entitle-bench: missing r\(size)-\(index).json\n".utf8))
                    return 2
                }
                receipts.append(data)
            }
            // Each body handles every file of the size once; the figure is per receipt.
            let times = stopwatch.compare([
                { receipts.reduce(0) { $0 &+ ((try? ParsedReceipt(json: $1))?.transactionCount ?? 0) } },
                { receipts.reduce(0) { $0 &+ ((try? catalog.evaluate([ParsedReceipt(json: $1)], at: at))?.warnings.count ?? 0) } },
            ])
            let perReceipt = times.map { $0 * 1e6 / Double(receipts.count) }
            results.append((size, perReceipt[0], perReceipt[1]))
            print(
                String(
                    format: "%6@ transactions: decode %8.2f µs, decode and evaluate %8.2f µs per receipt",
                    size as NSString, perReceipt[0], perReceipt[1]))
        }
        if let path {
            let files = results.map { "\"\($0.size)\": {\"decode\": \($0.decode), \"decodeEvaluate\": \($0.decodeEvaluate)}" }
            let text = "{\"files\": {" + files.joined(separator: ", ") + "}}\n"
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            } catch {
                FileHandle.standardError.write(Data("entitle-bench: cannot write \(path): \(error)\n".utf8))
                return 1
            }
        }
        return 0
    }
}
