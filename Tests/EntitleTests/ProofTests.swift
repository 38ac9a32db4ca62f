import Foundation
import Testing
@testable import Entitle
@testable import EntitleCommandLine

@Suite("Proving catalog changes")
struct ProofTests {
    @Test("explore")
    func explore() throws {
        let old = Fixtures.examples
        let start = Date()
        let same = CatalogProof.compare(old, old)
        print(same.text)
        print("elapsed", Date().timeIntervalSince(start))
        let directory = try DiffTests.edited(DiffTests.replacing(DiffTests.dayPassGrants, #""duration": "P1D", "grants": []"#))
        let new = try Portfolio.load(path: directory.path).get()
        let start2 = Date()
        let report = CatalogProof.compare(old, new)
        print(report.text)
        print("elapsed", Date().timeIntervalSince(start2))
    }
}
