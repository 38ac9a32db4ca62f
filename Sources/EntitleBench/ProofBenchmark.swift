import Entitle
import EntitleWorkloads
import Foundation

/// `entitle-bench --prove PRODUCTS [--depth N]`: the time of `entitle diff --prove` on a generated
/// catalog of PRODUCTS products (seed 42) against a copy with one change (the first product that
/// grants two features grants one), and of `entitle validate --deep` on it: one run each, as the
/// search is minutes of work, not a microbenchmark.
enum ProofBenchmark {
    static func run(products count: Int, depth: Int) -> Int32 {
        var generator = WorkloadGenerator(seed: 42)
        let catalog = generator.catalog(products: count)
        var changed = catalog
        if let index = changed.products.firstIndex(where: { $0.grants.count >= 2 }) { changed.products[index].grants.removeLast() }
        guard let old = Portfolio.compile([CatalogSource(name: "old.json", data: Data(catalog.json.utf8))]).portfolio,
            let new = Portfolio.compile([CatalogSource(name: "new.json", data: Data(changed.json.utf8))]).portfolio
        else {
            FileHandle.standardError.write(Data("entitle-bench: the generated catalogs do not compile\n".utf8))
            return 1
        }
        // Every product's display name changed (trials keep theirs, "N-day Trial"): no answer
        // changes, but almost no product reads the same, so almost nothing is skipped.
        var renamedJSON = catalog.json
        for prefix in ["Product", "Upgrade", "Pass", "Plan", "Pack"] {
            renamedJSON = renamedJSON.replacingOccurrences(of: "\"name\": \"\(prefix) ", with: "\"name\": \"Renamed \(prefix) ")
        }
        guard let renamed = Portfolio.compile([CatalogSource(name: "renamed.json", data: Data(renamedJSON.utf8))]).portfolio else {
            FileHandle.standardError.write(Data("entitle-bench: the renamed catalog does not compile\n".utf8))
            return 1
        }
        let options = ProofOptions(depth: depth)
        print("entitle-bench --prove \(count) --depth \(depth): \(ProcessInfo.processInfo.activeProcessorCount) cores")
        for (what, other) in [("one grant removed", new), ("every product renamed", renamed)] {
            let start = Date()
            let report = CatalogProof.compare(old, other, options: options)
            let compared = Date().timeIntervalSince(start)
            print(
                "diff --prove, \(what): \(String(format: "%.1f", compared)) s; \(report.searched); "
                    + "\(report.statistics.combinations) combinations; \(report.differences.count) parts of the answer differ")
        }
        let start = Date()
        let review = CatalogProof.review(new, sources: [], options: options)
        let reviewed = Date().timeIntervalSince(start)
        print("validate --deep: \(String(format: "%.1f", reviewed)) s; \(review.searched); \(review.findings.count) findings")
        return 0
    }
}

/// `entitle-bench --prove fixed [--depth N] [--products DIR]`: the time of `entitle diff --prove`
/// on two fixed changes, one run each: the example catalogs (`products/`) against a copy in which
/// the day pass grants nothing, and a seven-product subscription catalog (``ProofWorkloads/sevenProducts``)
/// against a copy whose promotional offer asks for three months paid instead of two. Prints the
/// receipts searched, the evaluations, the seconds, and whether the search took at most a minute.
extension ProofBenchmark {
    /// The limit a fixed proof is held to.
    static let fixedLimit = 60.0

    static func runFixed(depth: Int, products path: String) -> Int32 {
        let dayPass = #""duration": "P1D",\#n      "grants": ["pro"]"#
        guard case .success(let sources) = CatalogFiles.sources(at: path),
            sources.contains(where: { String(decoding: $0.data, as: UTF8.self).contains(dayPass) })
        else {
            FileHandle.standardError.write(Data("entitle-bench: \(path) is not the example catalogs (products/ with the day pass)\n".utf8))
            return 1
        }
        let edited = sources.map { source in
            CatalogSource(
                name: source.name,
                data: Data(
                    String(decoding: source.data, as: UTF8.self).replacingOccurrences(of: dayPass, with: #""duration": "P1D", "grants": []"#).utf8))
        }
        let loyal = #""subscribed": true, "paidAtLeast": "P2M""#
        let cases: [(String, [CatalogSource], [CatalogSource])] = [
            ("products/, the day pass grants nothing", sources, edited),
            (
                "seven products, the promotional offer asks for P3M paid",
                [CatalogSource(name: "notes.json", data: Data(ProofWorkloads.sevenProducts.utf8))],
                [
                    CatalogSource(
                        name: "notes.json",
                        data: Data(
                            ProofWorkloads.sevenProducts.replacingOccurrences(of: loyal, with: #""subscribed": true, "paidAtLeast": "P3M""#).utf8))
                ]
            ),
        ]
        print("entitle-bench --prove fixed --depth \(depth): \(ProcessInfo.processInfo.activeProcessorCount) cores")
        var status: Int32 = 0
        for (what, oldSources, newSources) in cases {
            guard let old = Portfolio.compile(oldSources).portfolio, let new = Portfolio.compile(newSources).portfolio else {
                FileHandle.standardError.write(Data("entitle-bench: the catalogs of \(what) do not compile\n".utf8))
                return 1
            }
            let start = Date()
            let report = CatalogProof.compare(old, new, options: ProofOptions(depth: depth))
            let seconds = Date().timeIntervalSince(start)
            let met = seconds <= fixedLimit && report.statistics.isComplete
            if !met { status = 1 }
            print(
                "diff --prove, \(what): \(String(format: "%.1f", seconds)) s; "
                    + "\(report.statistics.customers) receipts searched, \(report.statistics.evaluations) evaluations; "
                    + "\(report.differences.count) parts of the answer differ; "
                    + (met ? "within \(Int(fixedLimit)) s" : "NOT within \(Int(fixedLimit)) s"))
        }
        return status
    }
}
