import Foundation
import Testing

@testable import Entitle

/// The catalog language is declared once (`CatalogKey`); what is generated from it stays current.
@Suite("Catalog language")
struct CatalogLanguageTests {
    @Test("schemas/catalog.schema.json is what the language generates")
    func schemaIsCurrent() {
        Snapshot.expect(CatalogSchema.text, matches: "schemas/catalog.schema.json")
    }

    @Test("every object's keys are distinct, and each key's places name objects that list it")
    func declarationsAreConsistent() {
        for object in CatalogObject.allCases {
            let names = object.keyNames()
            #expect(Set(names).count == names.count, "a key is listed twice in \(object)")
            for key in object.keys() { #expect(key.place(in: object) != nil, "`\(key)` is listed in \(object) but has no place there") }
        }
        for key in CatalogKey.all {
            for place in key.places {
                #expect(place.object.keys().contains(key), "`\(key)` has a place in \(place.object) that does not list it")
            }
        }
    }

    @Test("paths resolve through the language")
    func locations() {
        let grant = CatalogLocation.resolve([.key("products"), .index(2), .key("grants"), .index(1)])
        #expect(grant?.object == .product && grant?.key == .grants && grant?.element == 1 && grant?.item?.index == 2)
        let mode = CatalogLocation.resolve([.key("products"), .index(0), .key("introOffer"), .key("mode")])
        #expect(mode?.object == .introductoryOffer && mode?.key == .mode && mode?.item?.list == .products)
        let feature = CatalogLocation.resolve([.key("features"), .key("pro")])
        #expect(feature?.key == .features && feature?.entry == "pro")
        #expect(CatalogLocation.object(at: [.key("products"), .index(0), .key("upgrade"), .key("requires")])?.object == .upgradeRequirement)
        #expect(CatalogLocation.resolve([.key("products"), .index(0), .key("nope")]) == nil)
        #expect(CatalogLocation.resolve([.key("app"), .key("x")]) == nil)
    }
}
