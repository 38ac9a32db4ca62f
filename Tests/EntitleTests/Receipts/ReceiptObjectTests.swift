import Foundation
import Testing

@testable import Entitle

/// `ReceiptObject`, the declaration of a normalized receipt's members: the decoder accepts exactly
/// them, the JSON writer writes every one it is given and no other, and `schemas/receipt.schema.json`
/// and the Receipts article list each, so a member added to one and forgotten in another fails
/// here, naming it.
@Suite("Receipt members declared once")
struct ReceiptObjectTests {
    /// An App Store receipt with every member an App Store receipt may have, none at its default
    /// (which the writer leaves out).
    static let appStore = """
        {
          "$schema": "https://example.com/receipt.schema.json",
          "app": "com.example.app",
          "environment": "Production",
          "originalApplicationVersion": "1.0",
          "originalPurchaseDate": "2025-01-01T00:00:00Z",
          "appTransactionId": "704",
          "originalPlatform": "iOS",
          "preorderDate": "2024-12-01T00:00:00Z",
          "consentRescinded": "2026-06-01T00:00:00Z",
          "transactions": [
            {
              "productId": "com.example.pro", "transactionId": "2", "originalTransactionId": "1",
              "purchaseDate": "2026-02-01T00:00:00Z", "originalPurchaseDate": "2026-01-01T00:00:00Z",
              "expiresDate": "2026-03-01T00:00:00Z", "cancellationDate": "2026-02-15T00:00:00Z", "quantity": 2,
              "isTrialPeriod": true, "isIntroOfferPeriod": true, "isUpgraded": true, "ownership": "family-shared",
              "offerType": "introductory", "offerId": "intro", "revocationReason": "other", "signedDate": "2026-02-15T00:00:00Z",
              "revocationType": "refund-prorated", "revocationPercentage": 50,
              "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
              "billingPlan": "monthly", "commitment": { "period": 1, "periods": 12, "endsAt": "2027-01-01T00:00:00Z" },
              "storefront": "USA", "appTransactionId": "704", "offerPeriod": "P1M", "offerDiscountType": "pay-as-you-go",
              "items": [ { "sku": "A", "price": "9990", "revocationDate": "2026-02-20T00:00:00Z",
                           "refunds": [ { "amount": "1000", "date": "2026-02-10T00:00:00Z", "type": "prorated" } ] } ]
            }
          ],
          "renewals": [
            {
              "productId": "com.example.pro", "originalTransactionId": "1", "willRenew": true, "isInBillingRetry": true,
              "gracePeriodExpiresDate": "2026-03-16T00:00:00Z", "signedDate": "2026-03-01T00:00:00Z", "renewsTo": "com.example.pro.yearly",
              "expirationIntent": "billing-error", "winBackOffers": ["wb"], "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
              "appTransactionId": "704", "renewalPrice": "9.99", "currency": "USD",
              "items": [ { "sku": "A", "price": "9990" } ]
            }
          ],
          "consumptions": [ { "id": "c1", "currency": "coins", "amount": 3, "date": "2026-02-02T00:00:00Z" } ],
          "grants": [ { "id": "g1", "features": ["pro"], "start": "2026-01-01T00:00:00Z", "end": "2026-01-02T00:00:00Z", "revokedAt": "2026-01-01T12:00:00Z" } ]
        }
        """

    /// A Play receipt with the members only other stores' receipts have.
    static let play = """
        {
          "app": "com.example.app",
          "store": "play",
          "transactions": [
            { "productId": "pro:monthly", "transactionId": "GPA.1", "purchaseDate": "2026-02-01T00:00:00Z", "expiresDate": "2026-03-01T00:00:00Z",
              "pending": true, "acknowledged": false, "account": "acct-1", "linkedPurchaseToken": "tok-earlier" },
            { "productId": "sequel", "transactionId": "GPA.2", "purchaseDate": "2026-02-01T00:00:00Z", "purchaseOptionId": "preorder",
              "releaseDate": "2026-06-01T00:00:00Z" },
            { "productId": "pro:prepaid", "transactionId": "GPA.3", "purchaseDate": "2026-02-01T00:00:00Z", "expiresDate": "2026-03-01T00:00:00Z",
              "topUpAfter": "2026-02-20T00:00:00Z" }
          ],
          "renewals": [ { "productId": "pro:monthly", "originalTransactionId": "GPA.1", "willRenew": true, "pausedUntil": "2026-04-01T00:00:00Z", "account": "acct-1" } ],
          "consumptions": [],
          "revocations": [
            { "transactionId": "GPA.1", "date": "2026-02-10T00:00:00Z", "voidedQuantity": 1 },
            { "transactionId": "pi_1", "date": "2026-02-11T00:00:00Z", "amount": 500, "amountPaid": 1500, "id": "re_1" },
            { "transactionId": "pi_1", "date": "2026-02-12T00:00:00Z", "amountRefunded": 700, "amountPaid": 1500 }
          ]
        }
        """

    /// The members of each kind of object in a receipt's JSON.
    static func members(_ json: Any) -> [ReceiptObject: Set<String>] {
        var found: [ReceiptObject: Set<String>] = [:]
        func visit(_ value: Any?, as object: ReceiptObject) {
            guard let dictionary = value as? [String: Any] else { return }
            found[object, default: []].formUnion(dictionary.keys)
            func each(_ key: String, as inner: ReceiptObject) {
                for element in dictionary[key] as? [Any] ?? [] { visit(element, as: inner) }
            }
            switch object {
            case .receipt:
                each("transactions", as: .transaction)
                each("renewals", as: .renewal)
                each("grants", as: .grant)
                each("consumptions", as: .consumption)
                each("revocations", as: .revocation)
            case .transaction:
                visit(dictionary["commitment"], as: .commitment)
                each("items", as: .item)
            case .item: each("refunds", as: .refund)
            case .renewal: each("items", as: .renewalItem)
            case .commitment, .refund, .renewalItem, .grant, .consumption, .revocation: break
            }
        }
        visit(json, as: .receipt)
        return found
    }

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test("the two receipts hold every declared member, and the decoder accepts them")
    func examplesAreWhole() throws {
        var union: [ReceiptObject: Set<String>] = [:]
        for text in [Self.appStore, Self.play] {
            _ = try ReceiptDecoder.decode(Data(text.utf8))
            union.merge(Self.members(try Self.json(text))) { $0.union($1) }
        }
        for object in ReceiptObject.allCases {
            #expect(union[object] == Set(object.keys), "\(object): \(Set(object.keys).symmetricDifference(union[object] ?? []).sorted())")
        }
    }

    @Test("the decoder refuses a member its object does not declare, naming the object")
    func undeclaredMembers() throws {
        for (object, path) in [(ReceiptObject.receipt, ""), (.transaction, "transactions[0]"), (.renewal, "renewals[0]")] {
            var tree = try #require(try Self.json(Self.appStore) as? [String: Any])
            switch object {
            case .receipt: tree["undeclared"] = 1
            case .transaction, .renewal:
                let key = object == .transaction ? "transactions" : "renewals"
                var list = try #require(tree[key] as? [[String: Any]])
                list[0]["undeclared"] = 1
                tree[key] = list
            default: break
            }
            let data = try JSONSerialization.data(withJSONObject: tree)
            let error = #expect(throws: ReceiptError.self, "\(object)") { _ = try ReceiptDecoder.decode(data) }
            #expect(error?.description.contains("unknown key `undeclared` in \(object.what)") == true, "\(path): \(String(describing: error))")
        }
    }

    @Test("the writer writes back every member it read, and no other")
    func writerWritesTheDeclaration() throws {
        for text in [Self.appStore, Self.play] {
            let receipt = try ReceiptDecoder.decode(Data(text.utf8))
            var read = Self.members(try Self.json(text))
            read[.receipt]?.remove("$schema")
            let written = Self.members(try Self.json(receipt.json))
            for object in ReceiptObject.allCases {
                #expect(written[object] ?? [] == read[object] ?? [], "\(object)")
                #expect((written[object] ?? []).isSubset(of: Set(object.keys)), "\(object)")
            }
            #expect(try ReceiptDecoder.decode(Data(receipt.json.utf8)) == receipt)
        }
    }

    /// Where the schema defines each object's members.
    static func schemaObject(_ object: ReceiptObject, in schema: [String: Any]) -> [String: Any]? {
        let definitions = schema["$defs"] as? [String: Any] ?? [:]
        func property(_ definition: [String: Any]?, _ key: String) -> [String: Any]? {
            let value = (definition?["properties"] as? [String: Any])?[key] as? [String: Any]
            // `anyOf` with null: the object alternative.
            let alternatives = value?["anyOf"] as? [[String: Any]] ?? value.map { [$0] } ?? []
            return alternatives.first { $0["type"] as? String != "null" }
        }
        switch object {
        case .receipt: return schema
        case .commitment: return property(definitions["transaction"] as? [String: Any], "commitment")
        case .refund: return property(definitions["item"] as? [String: Any], "refunds")?["items"] as? [String: Any]
        default: return definitions[object.rawValue] as? [String: Any]
        }
    }

    @Test("schemas/receipt.schema.json lists exactly the declared members of each object, and no other")
    func schemaFollowsTheDeclaration() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../schemas/receipt.schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        for object in ReceiptObject.allCases {
            let definition = try #require(Self.schemaObject(object, in: schema), "\(object)")
            let properties = Set((definition["properties"] as? [String: Any] ?? [:]).keys)
            #expect(properties == Set(object.keys), "\(object): \(properties.symmetricDifference(object.keys).sorted())")
            #expect(definition["additionalProperties"] as? Bool == false, "\(object)")
        }
    }

    /// The article's section that describes each object's members.
    static let sections: [ReceiptObject: String] = [
        .receipt: "## The receipt's own fields", .transaction: "## Transactions", .commitment: "## Transactions",
        .item: "## Transactions", .refund: "## Transactions", .renewal: "## Renewal entries", .renewalItem: "## Renewal entries",
        .grant: "## The receipt's own fields", .consumption: "## Consumptions", .revocation: "## Refunds and voids",
    ]

    @Test("the Receipts article names every declared member in its object's section")
    func articleFollowsTheDeclaration() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Sources/Entitle/Entitle.docc/Receipts.md")
        let article = try String(contentsOf: url, encoding: .utf8)
        for object in ReceiptObject.allCases {
            let heading = try #require(Self.sections[object])
            let start = try #require(article.range(of: heading + "\n"), "\(heading)")
            let rest = article[start.upperBound...]
            let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
            for key in object.keys {
                let named = section.contains("`\(key)`")
                #expect(named, "\(object) `\(key)` is not in \(heading)")
            }
        }
    }
}
