import Foundation
import Testing

@testable import Entitle

/// The lists of objects a catalog holds (`products`, a product's `offers` and `retention`): a
/// value that is not a list, and a list longer than its limit, each reported where it is.
@Suite("List limits")
struct ListLimitTests {
    /// A catalog of one auto-renewable whose `offers` and `retention` are the given JSON.
    static func catalog(offers: String, retention: String) -> String {
        """
        {"app": "com.example", "features": {"pro": "Pro"}, "legal": {"auto-renewable-subscription": "Terms"},
         "products": [{"id": "m", "type": "auto-renewable-subscription", "name": "M", "group": "g", "grants": ["pro"],
           "offers": \(offers), "retention": \(retention)}]}
        """
    }

    static func diagnostics(_ json: String) -> [Diagnostic] {
        CatalogChecker.check(file: "c.json", data: Data(json.utf8)).1
    }

    @Test("a list longer than its limit is reported at its first element too many")
    func tooLong() {
        let offers = (0...CatalogLimits.maxOffersPerProduct).map {
            #"{"id": "o\#($0)", "type": "promotional", "mode": "free-trial", "duration": "P1M"}"#
        }
        let rules = (0...CatalogLimits.maxRetentionRules).map { #"{"id": "r\#($0)", "message": "m\#($0)"}"# }
        let found = Self.diagnostics(
            Self.catalog(offers: "[" + offers.joined(separator: ",") + "]", retention: "[" + rules.joined(separator: ",") + "]"))
        let limits = found.filter { $0.code == .limitExceeded }
        #expect(
            limits.map(\.message) == [
                "1001 offers, more than the 1000 a product may have", "101 retention rules, more than the 100 a product may have",
            ])
        #expect(limits.map(\.path) == ["products[0].offers[1000]", "products[0].retention[100]"])
    }

    @Test("a list that is not an array is a wrong type")
    func notAList() {
        let found = Self.diagnostics(Self.catalog(offers: "{}", retention: "3"))
        #expect(
            found.filter { $0.code == .wrongType }.map(\.message) == [
                "expected an array of offers, found an object", "expected an array of retention rules, found a number",
            ])
        let products = Self.diagnostics(#"{"app": "com.example", "products": "none"}"#)
        #expect(products.first { $0.code == .wrongType }?.message == "expected an array of products, found a string")
        #expect(products.first { $0.code == .wrongType }?.path == "products")
    }
}
