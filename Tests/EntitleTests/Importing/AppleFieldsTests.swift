import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// The fields the normalized receipt gained (snapshot dates, revocation types and percentages,
/// account tokens, billing plans, commitments, eligible win-back offers) as the three importers
/// map them from the shared fixtures, and `.storekit` promotional and win-back offers as import
/// and drift read them. Expected values are read from the fixtures themselves.
@Suite(
    "Apple's new fields",
    .enabled(if: Fixtures.sharedFixturesAvailable, "needs the shared App Store fixtures (../shared/fixtures or $ENTITLE_FIXTURES)"))
struct AppleFieldsTests {
    static let fixtures = Fixtures.sharedFixtures
    static let models = "storekit2/apple-app-store-server-library-swift/models/"

    static func data(_ path: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(path)) }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data(path)) as? [String: Any])
    }

    static func milliseconds(_ value: Any?) -> Int64? {
        switch value {
        case let text as String: Int64(text)
        case let number as NSNumber: number.int64Value
        default: nil
        }
    }

    /// What `normalize` prints reads back as the same receipt.
    static func roundTrips(_ receipt: Receipt) throws {
        #expect(try ReceiptDecoder.decode(Data(receipt.json.utf8)) == receipt)
    }

    // MARK: App Store Server data

    @Test("a prorated refund maps its type, its percentage (thousandths / 1,000), the signing date and the account token")
    func revocation() throws {
        let path = Self.models + "signedTransactionWithRevocation.json"
        let raw = try Self.json(path)
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path)
        let transaction = try #require(imported.receipt.transactions.first)
        #expect(raw["revocationType"] as? String == "REFUND_PRORATED")
        #expect(transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == Double(try #require(Self.milliseconds(raw["revocationPercentage"]))) / 1_000)
        #expect(transaction.revocationPercentage == 50)
        #expect(transaction.signedDate?.millisecondsSince1970 == Self.milliseconds(raw["signedDate"]))
        #expect(transaction.appAccountToken == (raw["appAccountToken"] as? String)?.lowercased())
        // The file states neither a billing plan nor a commitment.
        #expect(raw["billingPlanType"] == nil && transaction.billingPlan == nil)
        #expect(raw["commitmentInfo"] == nil && transaction.commitment == nil)
        for field in ["signedDate", "revocationType", "revocationPercentage", "appAccountToken"] {
            #expect(!imported.warnings.contains { $0.message.contains("`\(field)`") }, "\(field) is mapped, not dropped")
        }
        try Self.roundTrips(imported.receipt)
    }

    @Test("a monthly billing plan with a commitment maps to billingPlan and commitment")
    func commitment() throws {
        let path = Self.models + "signedTransaction.json"
        let raw = try Self.json(path)
        let info = try #require(raw["commitmentInfo"] as? [String: Any])
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path)
        let transaction = try #require(imported.receipt.transactions.first)
        #expect(transaction.billingPlan == (raw["billingPlanType"] as? String == "MONTHLY" ? .monthly : .billedUpfront))
        let commitment = try #require(transaction.commitment)
        #expect(Int64(commitment.period) == Self.milliseconds(info["billingPeriodNumber"]))
        #expect(Int64(commitment.periods) == Self.milliseconds(info["totalBillingPeriods"]))
        #expect(commitment.endsAt.millisecondsSince1970 == Self.milliseconds(info["commitmentExpiresDate"]))
        #expect(transaction.signedDate?.millisecondsSince1970 == Self.milliseconds(raw["signedDate"]))
        #expect(!imported.warnings.contains { $0.message.contains("`billingPlanType`") || $0.message.contains("`commitmentInfo`") })
        try Self.roundTrips(imported.receipt)
    }

    @Test("renewal info maps eligibleWinBackOfferIds to winBackOffers, and its account token")
    func renewalInfo() throws {
        let path = Self.models + "signedRenewalInfo.json"
        let raw = try Self.json(path)
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path, app: "com.example")
        let renewal = try #require(imported.receipt.renewals.first)
        let offers = try #require(raw["eligibleWinBackOfferIds"] as? [String])
        #expect(!offers.isEmpty)
        #expect(renewal.winBackOffers == offers)
        #expect(renewal.appAccountToken == (raw["appAccountToken"] as? String)?.lowercased())
        #expect(renewal.signedDate?.millisecondsSince1970 == Self.milliseconds(raw["signedDate"]))
        let dropped = try #require(imported.warnings.first { $0.message.hasPrefix("not carried into the normalized receipt") })
        #expect(!dropped.message.contains("`eligibleWinBackOfferIds`") && !dropped.message.contains("`appAccountToken`"))
        // The renewal's own commitment and billing plan have no place in a renewal entry: still named.
        #expect(dropped.message.contains("`renewalBillingPlanType`"))
        try Self.roundTrips(imported.receipt)
    }

    @Test("a notification's signedDate dates a nested transaction that has none; the transaction's own wins")
    func notificationDate() throws {
        let jws = Fixtures.unsignedJWS
        let undated = #"{"transactionId":"1","productId":"p","bundleId":"com.example","purchaseDate":1700000000000}"#
        let dated = #"{"transactionId":"2","productId":"p","bundleId":"com.example","purchaseDate":1700000000000,"signedDate":1700000500000}"#
        let notification =
            #"{"notificationType":"REFUND","signedDate":1700000900000,"data":{"bundleId":"com.example","signedTransactionInfo":"\#(jws(undated))"}}"#
        let body = #"{"signedPayload":"\#(jws(notification))","signedTransactions":["\#(jws(dated))"]}"#
        let receipt = try AppleImport.unverifiedReceipt(fromAppStore: Data(body.utf8)).receipt
        let dates = Dictionary(uniqueKeysWithValues: receipt.transactions.map { ($0.transactionId, $0.signedDate?.millisecondsSince1970) })
        #expect(dates["1"] == 1_700_000_900_000)
        #expect(dates["2"] == 1_700_000_500_000)
    }

    @Test("copies of a transaction signed at different instants stay apart as snapshots; copies of one snapshot merge")
    func snapshots() throws {
        func payload(signed: Int64, revoked: Bool) -> String {
            #"{"transactionId":"7","productId":"p","bundleId":"com.example","purchaseDate":1700000000000,"signedDate":\#(signed)"#
                + (revoked ? #","revocationDate":1700000600000,"revocationType":"REFUND_FULL","revocationReason":0"# : "") + "}"
        }
        let history =
            "["
            + [
                payload(signed: 1_700_000_100_000, revoked: false), payload(signed: 1_700_000_700_000, revoked: true),
                payload(signed: 1_700_000_700_000, revoked: true),
            ].joined(separator: ",") + "]"
        let receipt = try AppleImport.unverifiedReceipt(fromAppStore: Data(history.utf8)).receipt
        #expect(receipt.transactions.count == 2)
        #expect(receipt.transactions.map { $0.signedDate?.millisecondsSince1970 } == [1_700_000_100_000, 1_700_000_700_000])
        #expect(receipt.transactions.map(\.revocationType) == [nil, .refundFull])
        try Self.roundTrips(receipt)
    }

    // MARK: verifyReceipt and app receipts

    static let verifyReceiptResponses = [
        "verifyreceipt/levibostian-dollabill-apple/subscription_first_time_purchase.json",
        "verifyreceipt/levibostian-dollabill-apple/subscription_multiple_subscription_purchases.json",
        "verifyreceipt/levibostian-dollabill-apple/bought_consumable.json",
        "verifyreceipt/levibostian-dollabill-apple/exclude_old_transactions.json",
        "verifyreceipt/revenuecat-purchases-ios/verifyReceiptSample1.json",
        "verifyreceipt/imdhemy-appstore-iap/verify_receipt_response.json",
    ]

    @Test(
        "every transaction of a verifyReceipt response is dated when Apple answered (receipt.request_date_ms)",
        arguments: verifyReceiptResponses)
    func verifyReceipt(path: String) throws {
        let raw = try Self.json(path)
        let answered = try #require(Self.milliseconds((raw["receipt"] as? [String: Any])?["request_date_ms"]))
        let receipt = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path).receipt
        #expect(!receipt.transactions.isEmpty)
        #expect(receipt.transactions.allSatisfy { $0.signedDate?.millisecondsSince1970 == answered })
        try Self.roundTrips(receipt)
    }

    @Test("a v1 notification carries no request date: its transactions stay undated")
    func notificationUndated() throws {
        let path = "verifyreceipt/imdhemy-appstore-iap/server-notification-v1-DID_CHANGE_RENEWAL_STATUS.json"
        let receipt = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path).receipt
        #expect(!receipt.transactions.isEmpty)
        #expect(receipt.transactions.allSatisfy { $0.signedDate == nil })
    }

    static let appReceipts = [
        "receipts-pkcs7/tikhop-TPInAppReceipt/receipt-production",
        "receipts-pkcs7/tikhop-TPInAppReceipt/receipt-sandbox-g5",
        "receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode",
        "receipts-pkcs7/apple-app-store-server-library-swift/xcode-app-receipt-with-transaction",
        "receipts-pkcs7/levibostian-dollabill-apple/subscription_renewed.latest_receipt.b64",
    ]

    @Test("every transaction of an app receipt is dated by the receipt's creation date (attribute 12)", arguments: appReceipts)
    func appReceipt(path: String) throws {
        let decoded = try Self.json(path.replacingOccurrences(of: ".b64", with: "") + ".decoded.json")
        let attributes = try #require(decoded["attributes"] as? [[String: Any]])
        let creation = try #require(attributes.first { $0["type"] as? Int == 12 }?["value"] as? [String: Any])
        var text = try #require((creation["IA5String"] ?? creation["UTF8String"]) as? String)
        let created = try #require(text.withUTF8 { Instant.parseRFC3339(UnsafeRawBufferPointer($0), allowCompactOffset: true) })
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path)
        #expect(!imported.receipt.transactions.isEmpty)
        #expect(imported.receipt.transactions.allSatisfy { $0.signedDate == created })
        #expect(!imported.warnings.contains { $0.message.contains("attribute 12") }, "attribute 12 is read, not dropped")
        try Self.roundTrips(imported.receipt)
    }

    @Test("RevenueCat's app receipt is dated at its creation, its verifyReceipt response at the request: the same snapshot, later")
    func revenueCatPair() throws {
        let response = try Self.json("verifyreceipt/revenuecat-purchases-ios/verifyReceiptSample1.json")
        let receiptObject = try #require(response["receipt"] as? [String: Any])
        let pkcs7 = try AppleImport.unverifiedReceipt(from: Self.data("receipts-pkcs7/revenuecat-purchases-ios/base64encoded_sandboxReceipt.txt"))
            .receipt
        let verify = try AppleImport.unverifiedReceipt(from: Self.data("verifyreceipt/revenuecat-purchases-ios/verifyReceiptSample1.json")).receipt
        let created = try #require(pkcs7.transactions.first?.signedDate)
        let answered = try #require(verify.transactions.first?.signedDate)
        #expect(created.millisecondsSince1970 == Self.milliseconds(receiptObject["receipt_creation_date_ms"]))
        #expect(answered.millisecondsSince1970 == Self.milliseconds(receiptObject["request_date_ms"]))
        #expect(created <= answered)
    }

    // MARK: .storekit offers

    static let storekitFiles = [
        "storekit-config/revenuecat-purchases-ios/UnitTestsConfiguration.storekit",
        "storekit-config/revenuecat-purchases-ios/PurchaseTesterStoreKitConfiguration.storekit",
    ]

    /// The file's offers of one kind (`adHocOffers`, `winbackOffers`), by product id.
    static func fileOffers(_ file: [String: Any], _ key: String) -> [String: [[String: Any]]] {
        var offers: [String: [[String: Any]]] = [:]
        for group in file["subscriptionGroups"] as? [[String: Any]] ?? [] {
            for subscription in group["subscriptions"] as? [[String: Any]] ?? [] {
                let list = subscription[key] as? [[String: Any]] ?? []
                if !list.isEmpty { offers[subscription["productID"] as! String] = list }
            }
        }
        return offers
    }

    static func compiled(_ configuration: StoreKitConfiguration) throws -> (json: String, catalog: CompiledCatalog) {
        let json = StoreKitCatalog.json(from: configuration, app: "com.example.imported")
        let compilation = Portfolio.compile([CatalogSource(name: "imported.json", data: Data(json.utf8))])
        #expect(compilation.errors.isEmpty, "\(compilation.errors.map(\.description))")
        return (json, try #require(compilation.compiledCatalogs.first))
    }

    @Test("ad-hoc offers import as promotional offers of their product, into a catalog that validates, with no drift", arguments: storekitFiles)
    func adHocOffers(_ file: String) throws {
        let raw = try Self.json(file)
        let configuration = try StoreKitConfiguration(data: Self.data(file), name: file)
        let (json, catalog) = try Self.compiled(configuration)
        let expected = Self.fileOffers(raw, "adHocOffers")
        #expect(!expected.isEmpty)
        let products = Dictionary(uniqueKeysWithValues: catalog.products.map { ($0.id, $0) })
        for (productId, entries) in expected {
            let offers = try #require(products[productId]?.offers)
            #expect(offers.map(\.id) == entries.map { $0["offerID"] as! String })
            for (offer, entry) in zip(offers, entries) {
                #expect(offer.type == .promotional)
                let count = entry["numberOfPeriods"] as? Int ?? 1
                let text = try #require(entry["subscriptionPeriod"] as? String)
                let period = try #require(ISODuration(text))
                switch entry["paymentMode"] as? String {
                case "payAsYouGo":
                    #expect(offer.mode == .payAsYouGo && offer.duration == period && offer.periods == count)
                case "payUpFront":
                    #expect(offer.mode == .payUpFront && offer.duration == period.repeated(count) && offer.periods == nil)
                default:
                    #expect(offer.mode == .freeTrial && offer.duration == period.repeated(count) && offer.periods == nil)
                }
                #expect(offer.from == nil && offer.until == nil && offer.subscribed == nil && offer.paidAtLeast == nil)
            }
        }
        #expect(StoreKitDrift.diagnostics(CatalogSource(name: "imported.json", data: Data(json.utf8)), configuration: configuration).isEmpty)
        #expect(configuration.warnings.isEmpty, "\(configuration.warnings)")
    }

    /// UnitTestsConfiguration.storekit with win-back offers added to its first subscription (every
    /// `winbackOffers` of the fixtures is empty): one stating App Store Connect's eligibility, one
    /// pay-as-you-go, and one with a key entitle does not read.
    static func withWinBackOffers() throws -> (data: Data, product: String) {
        var file = try Self.json(Self.storekitFiles[0])
        var groups = try #require(file["subscriptionGroups"] as? [[String: Any]])
        var subscriptions = try #require(groups[0]["subscriptions"] as? [[String: Any]])
        subscriptions[0]["winbackOffers"] =
            [
                [
                    "offerID": "winback.free", "paymentMode": "free", "subscriptionPeriod": "P1M", "numberOfPeriods": 1,
                    "referenceName": "Come back", "internalID": "AAAA0001", "displayPrice": "0",
                    "customerEligibilityPaidSubscriptionDurationInMonths": 6,
                    "customerEligibilityTimeSinceLastSubscribedInMonths": ["minimum": 2, "maximum": 24],
                    "customerEligibilityWaitBetweenOffersInMonths": 3,
                ],
                [
                    "offerID": "winback.cheap", "paymentMode": "payAsYouGo", "subscriptionPeriod": "P1M", "numberOfPeriods": 3,
                    "referenceName": "Cheaper", "internalID": "AAAA0002", "displayPrice": "0.99",
                ],
                [
                    "offerID": "winback.toggle", "paymentMode": "payUpFront", "subscriptionPeriod": "P3M", "numberOfPeriods": 1,
                    "referenceName": "Toggle", "internalID": "AAAA0003", "displayPrice": "2.99", "eligibility": "eligible",
                ],
            ] as [[String: Any]]
        let product = try #require(subscriptions[0]["productID"] as? String)
        groups[0]["subscriptions"] = subscriptions
        file["subscriptionGroups"] = groups
        return (try JSONSerialization.data(withJSONObject: file, options: [.prettyPrinted, .sortedKeys]), product)
    }

    @Test("win-back offers import with the eligibility the file states, into a catalog that validates")
    func winBackOffers() throws {
        let (data, productId) = try Self.withWinBackOffers()
        let configuration = try StoreKitConfiguration(data: data, name: "WinBack.storekit")
        let (json, catalog) = try Self.compiled(configuration)
        let product = try #require(catalog.products.first { $0.id == productId })
        let winBack = product.offers.filter { $0.type == .winBack }
        #expect(winBack.map(\.id) == ["winback.free", "winback.cheap", "winback.toggle"])
        #expect(winBack[0].mode == .freeTrial && winBack[0].duration.description == "P1M" && winBack[0].periods == nil)
        #expect(winBack[0].paidAtLeast?.description == "P6M")
        #expect(winBack[0].lapsedAtLeast?.description == "P2M" && winBack[0].lapsedAtMost?.description == "P24M")
        #expect(winBack[0].waitBetween?.description == "P3M")
        #expect(winBack[1].mode == .payAsYouGo && winBack[1].duration.description == "P1M" && winBack[1].periods == 3)
        #expect(winBack[1].paidAtLeast == nil && winBack[1].lapsedAtLeast == nil && winBack[1].waitBetween == nil)
        #expect(winBack[2].mode == .payUpFront && winBack[2].duration.description == "P3M")
        // The ad-hoc offers of the same product are still there, first.
        #expect(
            product.offers.prefix { $0.type == .promotional }.count
                == Self.fileOffers(try Self.json(Self.storekitFiles[0]), "adHocOffers")[productId]?.count)
        #expect(configuration.warnings == ["product `\(productId)`: win-back offer `winback.toggle` has `eligibility`, which entitle does not read"])
        #expect(json.contains(#""paidAtLeast": "P6M""#))
        #expect(StoreKitDrift.diagnostics(CatalogSource(name: "imported.json", data: Data(json.utf8)), configuration: configuration).isEmpty)
    }

    @Test("an offer import cannot carry whole is left out with a warning; a repeated offer id is imported once")
    func lossyOffers() throws {
        func offer(_ id: String, _ mode: String, _ period: String, _ count: Int) -> String {
            #"{"offerID": "\#(id)", "paymentMode": "\#(mode)", "subscriptionPeriod": "\#(period)", "numberOfPeriods": \#(count)}"#
        }
        func subscription(_ id: String, adHoc: [String], winBack: [String] = []) -> String {
            #"{"productID": "\#(id)", "referenceName": "\#(id)", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "P1M", "#
                + #""adHocOffers": [\#(adHoc.joined(separator: ","))], "winbackOffers": [\#(winBack.joined(separator: ","))]}"#
        }
        let storekit =
            #"{"version": {"major": 4}, "subscriptionGroups": [{"id": "G", "name": "G", "subscriptions": ["#
            + subscription(
                "a.one",
                adHoc: [
                    offer("same", "free", "P1W", 1), offer("many", "payAsYouGo", "P1M", 13),
                    offer("odd", "discount", "P1M", 1), offer("bad", "free", "soon", 1),
                ],
                winBack: [
                    #"{"offerID": "w", "paymentMode": "free", "subscriptionPeriod": "P1M", "customerEligibilityPaidSubscriptionDurationInMonths": 0}"#
                ])
            + "," + subscription("a.two", adHoc: [offer("same", "payUpFront", "P1Y", 1)]) + "]}]}"
        let configuration = try StoreKitConfiguration(data: Data(storekit.utf8), name: "Lossy.storekit")
        #expect(configuration.products.map { $0.offers.map(\.id) } == [["same"], []])
        #expect(
            configuration.warnings == [
                "product `a.one`: promotional offer `many` lasts 13 periods, more than the 12 a catalog's pay-as-you-go offer may; the offer is not imported",
                "product `a.one`: promotional offer `odd` of payment mode `discount` is not imported (entitle knows `free`, `payAsYouGo`, `payUpFront`)",
                "product `a.one`: promotional offer `bad` period `soon` is not an ISO 8601 duration; the offer is not imported",
                "product `a.one`: win-back offer `w` eligibility `customerEligibilityPaidSubscriptionDurationInMonths` is not a whole number of months from 1 to 1200; the offer is not imported",
                "product `a.two`: offer id `same` is used by an earlier offer; only the first is imported",
            ])
        _ = try Self.compiled(configuration)
    }

    @Test("drift reports a changed offer mode and an offer on one side only, located in the catalog")
    func offerDrift() throws {
        let file = Self.storekitFiles[1]
        let configuration = try StoreKitConfiguration(data: Self.data(file), name: file)
        let store = URL(fileURLWithPath: file).lastPathComponent
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(Self.compiled(configuration).json.utf8)) as? [String: Any])
        var products = try #require(catalog["products"] as? [[String: Any]])
        // The product with the most offers: change the mode of its last, delete its first, add one of the catalog's own.
        let index = try #require(
            products.indices.max { (products[$0]["offers"] as? [Any])?.count ?? 0 < (products[$1]["offers"] as? [Any])?.count ?? 0 })
        var offers = try #require(products[index]["offers"] as? [[String: Any]])
        #expect(offers.count >= 3)
        let removed = offers.removeFirst()
        let changed = offers.count - 1
        let oldMode = try #require(offers[changed]["mode"] as? String)
        let newMode = oldMode == "pay-up-front" ? "free-trial" : "pay-up-front"
        offers[changed]["mode"] = newMode
        offers[changed]["periods"] = nil
        offers.append(["id": "catalog.only", "type": "win-back", "mode": "free-trial", "duration": "P1M"])
        products[index]["offers"] = offers
        catalog["products"] = products
        let data = try JSONSerialization.data(withJSONObject: catalog, options: [.prettyPrinted, .sortedKeys])
        let drift = StoreKitDrift.diagnostics(CatalogSource(name: "catalog.json", data: data), configuration: configuration)
        let productId = try #require(products[index]["id"] as? String)
        let changedId = try #require(offers[changed]["id"] as? String)
        #expect(drift.count == 3, "\(drift.map(\.description))")
        #expect(drift.allSatisfy { $0.code == .storeDrift && $0.severity == .warning && $0.location?.file == "catalog.json" })
        let mode = try #require(drift.first { $0.path == "products[\(index)].offers[\(changed)].mode" })
        #expect(mode.message == "offer `\(changedId)`: mode `\(newMode)` here, `\(oldMode)` in \(store)")
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[mode.location!.line - 1].contains(#""mode" : "\#(newMode)""#))
        let extra = try #require(drift.first { $0.path == "products[\(index)].offers[\(offers.count - 1)].id" })
        #expect(extra.message == "offer `catalog.only` is not in \(store)")
        #expect(lines[extra.location!.line - 1].contains(#""id" : "catalog.only""#))
        let missing = try #require(drift.first { $0.path == "products[\(index)].offers" })
        #expect(missing.message.hasPrefix("\(store) has promotional offer `\(removed["id"]!)` ("))
        #expect(missing.message.hasSuffix("which the catalog does not define for `\(productId)`"))
        #expect(missing.help == "`entitle import \(store)` shows it as a catalog offer")
    }

    @Test("import prints the offers, and says which offer keys it did not read")
    func importCommand() throws {
        let (data, productId) = try Self.withWinBackOffers()
        let file = Fixtures.scratch("winback", ending: ".storekit")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = EntitleCommand.run(["import", file.path, "--app", "com.example.imported"], environment: CLITests.environment())
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains(#""type": "win-back""#))
        #expect(
            output.standardError.contains(
                "\(file.path): warning: product `\(productId)`: win-back offer `winback.toggle` has `eligibility`, which entitle does not read"))
    }
}

/// Apple's values where they could break a receipt: refused with a located error, never a crash
/// and never a value out of range.
@Suite("Apple's new fields, hostile")
struct AppleFieldsHostileTests {
    static func payload(_ field: String, _ value: String) -> String {
        #"{"transactionId":"1","productId":"p","bundleId":"com.example","purchaseDate":1767225600000,"\#(field)":\#(value)}"#
    }

    @Test(
        "a revocationPercentage that is not whole thousandths from 0 to 100000 is refused where it is",
        arguments: [
            "100001", "-1", "1.5", #""x""#, "1e3", "123456789012345678901234567890", "1e400", "-0.0", "true", "[]", "{}", #""""#,
        ])
    func percentage(_ value: String) throws {
        let json = Self.payload("revocationPercentage", value)
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(json.utf8)) }
        #expect(error.code == .badValue)
        #expect(error.message == "`revocationPercentage` is not a whole number from 0 to 100000")
        #expect(error.path == "revocationPercentage")
        let column = json.distance(from: json.startIndex, to: json.range(of: ":" + value)!.lowerBound) + 2
        #expect(error.location?.line == 1 && error.location?.column == column)
    }

    @Test(
        "a revocationPercentage in range is thousandths of a percent; null is none",
        arguments: [
            ("0", 0.0), ("50000", 50.0), ("33333", 33.333), ("100000", 100.0), (#""250""#, 0.25), ("null", nil),
        ] as [(String, Double?)])
    func percentageInRange(_ value: String, _ expected: Double?) throws {
        let receipt = try AppleImport.unverifiedReceipt(fromAppStore: Data(Self.payload("revocationPercentage", value).utf8)).receipt
        #expect(receipt.transactions.first?.revocationPercentage == expected)
        #expect(try ReceiptDecoder.decode(Data(receipt.json.utf8)) == receipt)
    }

    @Test(
        "an appAccountToken that is not a UUID is refused, located; an empty one is none; case does not matter",
        arguments: [
            (#""not-a-uuid""#, "`appAccountToken` `not-a-uuid` is not a UUID"),
            (#""7e3fb20b-4cdb-47cc-936d-99d65f60813""#, "`appAccountToken` `7e3fb20b-4cdb-47cc-936d-99d65f60813` is not a UUID"),
            ("42", "`appAccountToken` is not a string"),
        ])
    func accountToken(_ value: String, _ message: String) throws {
        let json = Self.payload("appAccountToken", value)
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(json.utf8)) }
        #expect(error.message == message && error.path == "appAccountToken")
        #expect(error.location?.column == json.count - value.count)
        let empty = try AppleImport.unverifiedReceipt(fromAppStore: Data(Self.payload("appAccountToken", #""""#).utf8)).receipt
        #expect(empty.transactions.first?.appAccountToken == nil)
        let upper = try AppleImport.unverifiedReceipt(
            fromAppStore: Data(Self.payload("appAccountToken", #""7E3FB20B-4CDB-47CC-936D-99D65F608138""#).utf8))
        #expect(upper.receipt.transactions.first?.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
    }

    @Test("verifyReceipt's app_account_token maps as the App Store's does: a UUID in lowercase, anything else refused, located")
    func verifyReceiptAccountToken() throws {
        func response(_ token: String) -> String {
            #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example","in_app":[{"product_id":"p","transaction_id":"1","purchase_date_ms":"1767225600000","app_account_token":"#
                + token + "}]}}"
        }
        let mapped = try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(response(#""7E3FB20B-4CDB-47CC-936D-99D65F608138""#).utf8))
        #expect(mapped.receipt.transactions.first?.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(response(#""""#).utf8)).receipt.transactions.first?.appAccountToken == nil)
        let json = response(#""user-42""#)
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(json.utf8)) }
        #expect(error.message == "`app_account_token` `user-42` is not a UUID")
        #expect(error.path == "receipt.in_app[0].app_account_token")
        #expect(error.location?.column == json.count - #""user-42"}]}}"#.count + 1)
    }

    @Test("unknown revocation and billing plan types are left out with a warning")
    func unknownValues() throws {
        let json =
            #"{"transactionId":"1","productId":"p","bundleId":"com.example","purchaseDate":1767225600000,"revocationType":"REFUND_SOMEDAY","billingPlanType":7}"#
        let imported = try AppleImport.unverifiedReceipt(fromAppStore: Data(json.utf8))
        let transaction = try #require(imported.receipt.transactions.first)
        #expect(transaction.revocationType == nil && transaction.billingPlan == nil)
        #expect(
            imported.warnings.map(\.description).prefix(2) == [
                "revocationType: unknown revocation type `REFUND_SOMEDAY`, ignored", "billingPlanType: unknown billing plan type `7`, ignored",
            ])
    }

    @Test(
        "a commitment out of range is refused, located; an incomplete one is left out with a warning",
        arguments: [
            (
                #"{"billingPeriodNumber":0,"totalBillingPeriods":12,"commitmentExpiresDate":1767225600000}"#,
                "`billingPeriodNumber` is not a whole number from 1 to 1000"
            ),
            (
                #"{"billingPeriodNumber":3,"totalBillingPeriods":1e9,"commitmentExpiresDate":1767225600000}"#,
                "`totalBillingPeriods` is not a whole number from 1 to 1000"
            ),
            (
                #"{"billingPeriodNumber":13,"totalBillingPeriods":12,"commitmentExpiresDate":1767225600000}"#,
                "billing period 13 of a commitment of 12 periods"
            ),
            (
                #"{"billingPeriodNumber":3,"totalBillingPeriods":12,"commitmentExpiresDate":99999999999999999}"#,
                "`commitmentExpiresDate` 99999999999999999 ms is outside years 0001-9999"
            ),
            ("[]", "`commitmentInfo` is not an object"),
        ])
    func commitment(_ value: String, _ message: String) throws {
        let error = try #require(throws: ReceiptError.self) {
            try AppleImport.unverifiedReceipt(fromAppStore: Data(Self.payload("commitmentInfo", value).utf8))
        }
        #expect(error.message == message)
        #expect(error.path.hasPrefix("commitmentInfo"))
        let partial = #"{"billingPeriodNumber":3,"totalBillingPeriods":12}"#
        let imported = try AppleImport.unverifiedReceipt(fromAppStore: Data(Self.payload("commitmentInfo", partial).utf8))
        #expect(imported.receipt.transactions.first?.commitment == nil)
        #expect(imported.warnings.first?.description == "commitmentInfo: commitment without `commitmentExpiresDate`, ignored")
    }

    @Test(
        "eligibleWinBackOfferIds must be a list of non-empty strings",
        arguments: [
            (#""eligible1""#, "eligibleWinBackOfferIds"), (#"["a", 1]"#, "eligibleWinBackOfferIds[1]"), (#"[""]"#, "eligibleWinBackOfferIds[0]"),
        ])
    func winBackOfferIds(_ value: String, _ path: String) throws {
        let json = #"{"originalTransactionId":"1","autoRenewStatus":1,"eligibleWinBackOfferIds":\#(value)}"#
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(json.utf8), app: "com.example") }
        #expect(error.path == path && error.code == .badValue)
        let none = #"{"originalTransactionId":"1","autoRenewStatus":1,"eligibleWinBackOfferIds":[]}"#
        let renewal = try AppleImport.unverifiedReceipt(fromAppStore: Data(none.utf8), app: "com.example").receipt.renewals.first
        #expect(renewal?.winBackOffers == [], "an empty list says no offer is eligible, which is not the same as no list")
    }
}
