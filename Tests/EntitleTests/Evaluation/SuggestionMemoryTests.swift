import Foundation
import Testing

@testable import Entitle

private typealias T = Fixtures

/// An unknown product's did-you-mean is searched once per catalog and id: evaluation with its
/// warnings read must not grow with the catalog for every customer.
@Suite("Did-you-mean remembered per catalog")
struct SuggestionMemoryTests {
    static func catalog(products: Int) -> CompiledCatalog {
        let items = (0..<products).map { index in
            #"{ "id": "com.example.catalog.of.many.products.number\#(index)", "type": "consumable", "name": "P", "credits": { "coins": 1 } }"#
        }
        return T.catalog(
            #"{ "app": "com.ex.app", "features": {}, "currencies": { "coins": "Coins" }, "products": ["# + items.joined(separator: ",") + "] }")
    }

    static func unknown(_ id: String) -> Receipt {
        Receipt(app: "com.ex.app", transactions: [Transaction(productId: id, transactionId: "1", purchaseDate: T.instant("2026-01-01T00:00:00Z"))])
    }

    @Test("the same answer every time, searched once; another id is another search")
    func rememberedOnce() throws {
        let catalog = Self.catalog(products: 20)
        let at = T.instant("2026-02-01T00:00:00Z")
        let typo = "com.example.catalog.of.many.products.numbr7"
        let first = catalog.evaluate([Self.unknown(typo)], at: at).warnings
        #expect(first.count == 1, "\(first.map(\.message))")
        #expect(first.first?.message.contains("did you mean `com.example.catalog.of.many.products.number7`") == true, "\(first.map(\.message))")
        #expect(catalog.rememberedSuggestionCount == 1)
        #expect(catalog.evaluate([Self.unknown(typo)], at: at).warnings == first)
        #expect(catalog.rememberedSuggestionCount == 1)
        _ = catalog.evaluate([Self.unknown("nothing.like.it")], at: at).warnings
        #expect(catalog.rememberedSuggestionCount == 2)
    }

    @Test("a catalog too large to search within one budget gives no suggestion, remembered as such")
    func tooLargeIsRemembered() {
        let catalog = Self.catalog(products: 3_000)
        let at = T.instant("2026-02-01T00:00:00Z")
        let typo = "com.example.catalog.of.many.products.numbr2999"
        let first = catalog.evaluate([Self.unknown(typo)], at: at).warnings
        #expect(first.count == 1 && first.first?.message.contains("did you mean") == false, "\(first.map(\.message))")
        #expect(catalog.rememberedSuggestionCount == 1)
        #expect(catalog.evaluate([Self.unknown(typo)], at: at).warnings == first)
        #expect(catalog.rememberedSuggestionCount == 1)
    }
}
