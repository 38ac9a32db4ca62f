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
