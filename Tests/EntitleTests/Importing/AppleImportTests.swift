import EntitleWorkloads
import Foundation
import Testing

@testable import Entitle

/// Apple's formats, on the real public fixtures in ../shared/fixtures. Expected values are read
/// from the fixtures themselves (with Foundation's JSONSerialization, or from the fixture set's
/// `*.decoded.json` files, which were decoded with openssl), not typed in.
@Suite(
    "Apple formats", .enabled(if: Fixtures.sharedFixturesAvailable, "needs the shared App Store fixtures (../shared/fixtures or $ENTITLE_FIXTURES)"))
struct AppleImportTests {
    static let fixtures = Fixtures.sharedFixtures

    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(path))
    }

    static func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: data(path)) as! [String: Any]
    }

    static func milliseconds(_ value: Any?) -> Int64? {
        switch value {
        case let text as String: Int64(text)
        case let number as NSNumber: number.int64Value
        default: nil
        }
    }

    // MARK: verifyReceipt

    static let verifyReceiptResponses = [
        "verifyreceipt/levibostian-dollabill-apple/subscription_first_time_purchase.json",
        "verifyreceipt/levibostian-dollabill-apple/subscription_second_time_purchase.json",
        "verifyreceipt/levibostian-dollabill-apple/subscription_renewed.json",
        "verifyreceipt/levibostian-dollabill-apple/subscription_multiple_subscription_purchases.json",
        "verifyreceipt/levibostian-dollabill-apple/bought_consumable.json",
        "verifyreceipt/levibostian-dollabill-apple/bought_non_consumable.json",
        "verifyreceipt/levibostian-dollabill-apple/consumable_in_latest_receipt_info.json",
        "verifyreceipt/levibostian-dollabill-apple/exclude_old_transactions.json",
        "verifyreceipt/levibostian-dollabill-apple/server_notification.json",
        "verifyreceipt/revenuecat-purchases-ios/verifyReceiptSample1.json",
        "verifyreceipt/imdhemy-appstore-iap/verify_receipt_response.json",
        "verifyreceipt/imdhemy-appstore-iap/server-notification-v1-DID_CHANGE_RENEWAL_STATUS.json",
        "verifyreceipt/aporat-store-receipt-validator/inAppPurchaseResponse.json",
        "verifyreceipt/aporat-store-receipt-validator/serverNotificationRequest.json",
    ]

    @Test("every verifyReceipt response and v1 notification normalizes to the transactions it holds", arguments: verifyReceiptResponses)
    func verifyReceipt(path: String) throws {
        let raw = try Self.json(path)
        let response = (raw["unified_receipt"] as? [String: Any]) ?? raw
        let receiptObject = response["receipt"] as? [String: Any]
        var expected: [String: [String: Any]] = [:]
        for entry in ((receiptObject?["in_app"] as? [[String: Any]]) ?? []) + ((response["latest_receipt_info"] as? [[String: Any]]) ?? []) {
            let id = "\(entry["transaction_id"]!)"
            if expected[id] == nil { expected[id] = entry }
        }
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path)
        #expect(imported.format == .verifyReceipt)
        let receipt = imported.receipt
        #expect(receipt.app == (receiptObject?["bundle_id"] as? String ?? raw["bid"] as? String))
        #expect(receipt.transactions.count == expected.count)
        #expect(Set(receipt.transactions.map(\.transactionId)) == Set(expected.keys))
        for transaction in receipt.transactions {
            let entry = try #require(expected[transaction.transactionId])
            #expect(transaction.productId == entry["product_id"] as? String)
            #expect(transaction.purchaseDate.millisecondsSince1970 == Self.milliseconds(entry["purchase_date_ms"]))
            #expect(transaction.expiresDate?.millisecondsSince1970 == Self.milliseconds(entry["expires_date_ms"]))
            let trial = "\(entry["is_trial_period"] ?? "false")"
            #expect(transaction.isTrialPeriod == (trial == "true" || trial == "1"))
        }
        #expect(receipt.renewals.count == ((response["pending_renewal_info"] as? [Any]) ?? []).count)
        #expect(receipt.environment == "sandbox" || receipt.environment == "production")
    }

    @Test("in_app and latest_receipt_info merge by transaction id")
    func merge() throws {
        let path = "verifyreceipt/levibostian-dollabill-apple/bought_non_consumable.json"
        let receipt = try AppleImport.unverifiedReceipt(fromVerifyReceipt: Self.data(path)).receipt
        #expect(Set(receipt.transactions.map(\.transactionId)).count == receipt.transactions.count)
        let renewed = try AppleImport.unverifiedReceipt(
            fromVerifyReceipt: Self.data("verifyreceipt/imdhemy-appstore-iap/server-notification-v1-DID_CHANGE_RENEWAL_STATUS.json")
        ).receipt
        #expect(renewed.transactions.filter(\.isUpgraded).count == 4, "four entries carry is_upgraded \"true\"")
        #expect(renewed.renewals.first?.willRenew == false)
    }

    @Test("an expiration_intent Apple has not defined is dropped with a warning, as in JWS renewal info")
    func unknownExpirationIntent() throws {
        let path = "verifyreceipt/imdhemy-appstore-iap/verify_receipt_response.json"
        let text = try #require(String(data: Self.data(path), encoding: .utf8))
        let edited = text.replacingOccurrences(of: #""expiration_intent": "1""#, with: #""expiration_intent": "7""#)
        #expect(edited != text)
        let imported = try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(edited.utf8))
        #expect(imported.receipt.renewals.allSatisfy { $0.expirationIntent == nil })
        #expect(imported.warnings.contains { $0.description.contains("unknown expiration intent 7, ignored") }, "\(imported.warnings)")
    }

    @Test(
        "a non-zero status is an error naming the status and its meaning",
        arguments: [
            (
                "verifyreceipt/aporat-store-receipt-validator/inAppPurchaseInvalidReceiptResponse.json",
                "verifyReceipt status 21002: the receipt data was malformed or the App Store service had a temporary issue"
            ),
            ("verifyreceipt/levibostian-dollabill-apple/simple.json", "verifyReceipt status 2: not a status Apple documents"),
        ])
    func status(path: String, message: String) throws {
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(from: Self.data(path), name: path) }
        #expect(error.message == message)
        #expect(error.path == "status")
    }

    @Test(
        "entries copied out of a response normalize when the app is given",
        arguments: [
            ("verifyreceipt/levibostian-dollabill-apple/autorenewable_subscription.json", 1, 0),
            ("verifyreceipt/levibostian-dollabill-apple/autorenewable_subscription2.json", 1, 0),
            ("verifyreceipt/levibostian-dollabill-apple/consumable.json", 1, 0),
            ("verifyreceipt/levibostian-dollabill-apple/consumable2.json", 1, 0),
            ("verifyreceipt/levibostian-dollabill-apple/will_autorenew_pending_renewal_info.json", 0, 1),
        ])
    func loneEntries(path: String, transactions: Int, renewals: Int) throws {
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(from: Self.data(path)) }
        #expect(error.help == "give the app (`--app`), or pass the whole verifyReceipt response")
        let receipt = try AppleImport.unverifiedReceipt(from: Self.data(path), app: "com.example.app").receipt
        #expect(receipt.app == "com.example.app")
        #expect(receipt.transactions.count == transactions && receipt.renewals.count == renewals)
        let raw = try Self.json(path)
        if let transaction = receipt.transactions.first {
            #expect(transaction.transactionId == "\(raw["transaction_id"]!)")
            #expect(transaction.purchaseDate.millisecondsSince1970 == Self.milliseconds(raw["purchase_date_ms"]))
        }
    }

    @Test(
        "the app option only fills in a missing app: data naming another app is refused, located",
        arguments: [
            (
                "storekit2/apple-app-store-server-library-swift/xcode/xcode-signed-transaction", "com.example.naturelab.backyardbirds.example",
                "bundleId"
            ),
            ("storekit2/apple-app-store-server-library-swift/models/signedTransaction.json", "com.example", "bundleId"),
            ("verifyreceipt/revenuecat-purchases-ios/verifyReceiptSample1.json", "com.revenuecat.sampleapp", "receipt.bundle_id"),
            ("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode", "net.zachariadis.cyclemaps", "attribute 2"),
        ])
    func appOptionNeverRelabels(path: String, named: String, field: String) throws {
        let data = try Self.data(path)
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(from: data, name: path, app: "com.other") }
        #expect(error.message == "the data is for app `\(named)`, not `com.other`")
        #expect(error.path == field)
        #expect(error.location?.file == path)
        // The same app, or none, is fine.
        #expect(try AppleImport.unverifiedReceipt(from: data, app: named).receipt.app == named)
        #expect(try AppleImport.unverifiedReceipt(from: data).receipt.app == named)
    }

    @Test("a receipt Apple data maps to breaks no limit, so what normalize prints check reads")
    func importedLimits() throws {
        let long = String(repeating: "x", count: 300)
        let json = #"{"transactionId":"\#(long)","productId":"p","bundleId":"com.example","purchaseDate":1767225600000}"#
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(json.utf8)) }
        #expect(error.code == .limitExceeded)
        #expect(error.path == "transactions[0].transactionId")
        let quantity = #"{"transactionId":"1","productId":"p","bundleId":"com.example","purchaseDate":1767225600000,"quantity":1001}"#
        let quantityError = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(quantity.utf8)) }
        #expect(quantityError.message == "`quantity` is not an integer from 1 to 1000")
        #expect(quantityError.location?.column == 103)
    }

    @Test("offers and refund reasons are carried into the normalized receipt, in all three formats")
    func offersAndReasons() throws {
        let revoked = try AppleImport.unverifiedReceipt(
            from: Self.data("storekit2/apple-app-store-server-library-swift/models/signedTransactionWithRevocation.json")
        ).receipt
        let transaction = try #require(revoked.transactions.first)
        #expect(transaction.offerType == .introductory && transaction.offerId == "abc.123")
        #expect(transaction.revocationReason == .appIssue)
        let production = try AppleImport.unverifiedReceipt(from: Self.data("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-production")).receipt
        #expect(production.transactions.contains { $0.offerType == .promotional && $0.offerId == "org.getpure.pure.Month.Offer.3M.PayToGo" })
        let verify = #"""
            {"status":0,"receipt":{"bundle_id":"com.example","in_app":[
              {"product_id":"p","transaction_id":"1","purchase_date_ms":"1700000000000","promotional_offer_id":"winter"},
              {"product_id":"p","transaction_id":"2","purchase_date_ms":"1700000000000","offer_code_ref_name":"SPRING",
               "cancellation_date_ms":"1700000100000","cancellation_reason":"0","web_order_line_item_id":"9"}]}}
            """#
        let imported = try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(verify.utf8))
        #expect(imported.receipt.transactions.map(\.offerType) == [.promotional, .offerCode])
        #expect(imported.receipt.transactions.map(\.offerId) == ["winter", "SPRING"])
        #expect(imported.receipt.transactions.map(\.revocationReason) == [nil, .other])
        #expect(
            imported.warnings.map(\.description) == [
                "not carried into the normalized receipt (entitle does not use them): `web_order_line_item_id`"
            ])
        // What normalize prints, check reads back the same.
        #expect(try ReceiptDecoder.decode(Data(imported.receipt.json.utf8)) == imported.receipt)
    }

    @Test("numbers and booleans are accepted where Apple writes strings")
    func lenientTypes() throws {
        let path = "verifyreceipt/aporat-store-receipt-validator/inAppPurchaseResponse.json"
        let receipt = try AppleImport.unverifiedReceipt(fromVerifyReceipt: Self.data(path)).receipt
        #expect(!receipt.transactions.isEmpty)
        #expect(receipt.transactions.allSatisfy { $0.purchaseDate.millisecondsSince1970 > 1_000_000_000_000 })
    }

    // MARK: PKCS#7

    static let appReceipts = [
        ("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-production", "production"),
        ("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-sandbox-g5", "sandbox"),
        ("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-sandbox-legacy", "sandbox"),
        ("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode", "xcode"),
        ("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode-with-purchases", "xcode"),
        ("receipts-pkcs7/apple-app-store-server-library-swift/xcode-app-receipt-empty", "xcode"),
        ("receipts-pkcs7/apple-app-store-server-library-swift/xcode-app-receipt-with-transaction", "xcode"),
        ("receipts-pkcs7/revenuecat-purchases-ios/base64encoded_sandboxReceipt.txt", "sandbox"),
        ("receipts-pkcs7/levibostian-dollabill-apple/bought_consumable.latest_receipt.b64", "sandbox"),
        ("receipts-pkcs7/levibostian-dollabill-apple/exclude_old_transactions.latest_receipt.b64", "sandbox"),
        ("receipts-pkcs7/levibostian-dollabill-apple/subscription_renewed.latest_receipt.b64", "sandbox"),
    ]

    @Test("every app receipt normalizes to what openssl decoded from it", arguments: appReceipts)
    func appReceipt(path: String, environment: String) throws {
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path)
        #expect(imported.format == .pkcs7)
        let receipt = imported.receipt
        #expect(receipt.environment == environment)
        let decodedPath = path.replacingOccurrences(of: ".txt", with: "").replacingOccurrences(of: ".b64", with: "") + ".decoded.json"
        guard FileManager.default.fileExists(atPath: Self.fixtures.appendingPathComponent(decodedPath).path) else {
            #expect(!receipt.app.isEmpty)
            return
        }
        let decoded = try Self.json(decodedPath)
        let attributes = decoded["attributes"] as! [[String: Any]]
        func text(_ attribute: [String: Any]) -> String? {
            let value = attribute["value"] as? [String: Any]
            return (value?["UTF8String"] ?? value?["IA5String"]) as? String
        }
        #expect(receipt.app == attributes.first { $0["type"] as? Int == 2 }.flatMap(text))
        var expected: [String: [Int: Any]] = [:]
        // Each type-17 attribute is one purchase: a list of its fields.
        for attribute in attributes where attribute["type"] as? Int == 17 {
            let entry = try #require(attribute["in_app"] as? [[String: Any]])
            var fields: [Int: Any] = [:]
            for field in entry {
                let value = field["value"] as? [String: Any]
                fields[try #require(field["type"] as? Int)] = value?["UTF8String"] ?? value?["IA5String"] ?? value?["INTEGER"]
            }
            let id = try #require(fields[1703] as? String)
            if expected[id] == nil { expected[id] = fields }
        }
        #expect(receipt.transactions.count == expected.count)
        for transaction in receipt.transactions {
            let fields = try #require(expected[transaction.transactionId])
            #expect(transaction.productId == fields[1702] as? String)
            var purchase = try #require(fields[1704] as? String)
            let parsed = purchase.withUTF8 { Instant.parseRFC3339(UnsafeRawBufferPointer($0), allowCompactOffset: true) }
            #expect(transaction.purchaseDate == parsed)
            #expect(transaction.isIntroOfferPeriod == ((fields[1719] as? Int) == 1))
        }
    }

    @Test("a receipt's two date spellings, Z and +0100, read as the same instants")
    func dateSpellings() throws {
        let receipt = try AppleImport.unverifiedReceipt(fromPKCS7: Self.data("receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode")).receipt
        let transaction = try #require(receipt.transactions.first)
        // The decoded file gives 2020-07-22T18:33:15+0100 style dates: an hour ahead of UTC.
        #expect(transaction.purchaseDate.rfc3339.hasSuffix("Z"))
        #expect(receipt.app == "net.zachariadis.cyclemaps")
    }

    /// What an app receipt (PKCS#7) at `pkcs7` holds, and what the fixture at `other`, of the same
    /// purchases in `format`, holds.
    static func samePurchases(_ pkcs7: String, _ other: String, as format: ReceiptFormat) throws -> (Receipt, Receipt) {
        (
            try AppleImport.unverifiedReceipt(from: data(pkcs7), format: .pkcs7).receipt,
            try AppleImport.unverifiedReceipt(from: data(other), format: format).receipt
        )
    }

    @Test("the RevenueCat PKCS#7 receipt and its verifyReceipt response hold the same transactions")
    func revenueCatPair() throws {
        let (pkcs7, response) = try Self.samePurchases(
            "receipts-pkcs7/revenuecat-purchases-ios/base64encoded_sandboxReceipt.txt",
            "verifyreceipt/revenuecat-purchases-ios/verifyReceiptSample1.json", as: .verifyReceipt)
        func key(_ transaction: Transaction) -> String {
            "\(transaction.transactionId) \(transaction.productId) \(transaction.purchaseDate) \(transaction.expiresDate.map(\.rfc3339) ?? "-")"
        }
        let fromReceipt = Set(pkcs7.transactions.map(key))
        let fromResponse = Set(response.transactions.map(key))
        #expect(fromReceipt.count == 9)
        #expect(fromReceipt.isSubset(of: fromResponse), "\(fromReceipt.subtracting(fromResponse))")
        #expect(pkcs7.app == response.app)
    }

    // MARK: App Store Server API and StoreKit 2

    @Test("the Xcode-signed transaction decodes to the payload's purchase")
    func xcodeTransaction() throws {
        let path = "storekit2/apple-app-store-server-library-swift/xcode/xcode-signed-transaction"
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path)
        #expect(imported.format == .appStore)
        let payload = try Self.json(path + ".decoded.json")["payload"] as! [String: Any]
        let receipt = imported.receipt
        #expect(receipt.app == payload["bundleId"] as? String)
        #expect(receipt.environment == "xcode")
        let transaction = try #require(receipt.transactions.first)
        #expect(transaction.productId == payload["productId"] as? String)
        #expect(transaction.transactionId == payload["transactionId"] as? String)
        // Fractional milliseconds (1697679936049.7297) are dropped.
        #expect(transaction.purchaseDate.millisecondsSince1970 == Int64((payload["purchaseDate"] as! Double).rounded(.down)))
        #expect(transaction.expiresDate?.millisecondsSince1970 == Int64((payload["expiresDate"] as! Double).rounded(.down)))
        #expect(transaction.isIntroOfferPeriod, "offerType 1 is introductory")
    }

    @Test("the Xcode receipt and the Xcode JWS describe the same pass.premium purchase")
    func xcodePair() throws {
        let (receipt, jws) = try Self.samePurchases(
            "receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode-with-purchases",
            "storekit2/apple-app-store-server-library-swift/xcode/xcode-signed-transaction", as: .appStore)
        let a = try #require(receipt.transactions.first)
        let b = try #require(jws.transactions.first)
        #expect(receipt.app == jws.app)
        #expect(a.productId == "pass.premium" && b.productId == "pass.premium")
        #expect(a.transactionId == b.transactionId)
        // The receipt keeps whole seconds; the JWS keeps milliseconds.
        #expect(a.purchaseDate.millisecondsSince1970 / 1000 == b.purchaseDate.millisecondsSince1970 / 1000)
        #expect(a.expiresDate!.millisecondsSince1970 / 1000 == b.expiresDate!.millisecondsSince1970 / 1000)
        #expect(a.isIntroOfferPeriod && b.isIntroOfferPeriod)
    }

    @Test("decoded transaction payloads map revocation, upgrade and offers")
    func decodedTransaction() throws {
        let path = "storekit2/apple-app-store-server-library-swift/models/signedTransaction.json"
        let raw = try Self.json(path)
        let receipt = try AppleImport.unverifiedReceipt(from: Self.data(path)).receipt
        let transaction = try #require(receipt.transactions.first)
        #expect(transaction.cancellationDate?.millisecondsSince1970 == Self.milliseconds(raw["revocationDate"]))
        #expect(transaction.isUpgraded == (raw["isUpgraded"] as? Bool))
        #expect(transaction.isIntroOfferPeriod && !transaction.isTrialPeriod, "offerType 1, PAY_AS_YOU_GO")
        #expect(receipt.environment == "local-testing")
        #expect(transaction.ownership == (raw["inAppOwnershipType"] as? String == "FAMILY_SHARED" ? .familyShared : .purchased))
    }

    @Test("a real Apple-signed sandbox transaction decodes")
    func realSandbox() throws {
        let path = "storekit2/real-apple-signed/mingos-app_store_server_api/sandbox-consumable-signedTransaction.jws"
        let payload = try Self.json(path.replacingOccurrences(of: ".jws", with: ".decoded.json"))["payload"] as! [String: Any]
        let receipt = try AppleImport.unverifiedReceipt(from: Self.data(path)).receipt
        #expect(receipt.app == payload["bundleId"] as? String)
        #expect(receipt.environment == "sandbox")
        #expect(receipt.transactions.first?.purchaseDate.millisecondsSince1970 == Self.milliseconds(payload["purchaseDate"]))
    }

    @Test(
        "renewal info names no app: it normalizes when the app is given",
        arguments: [
            "storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json",
            "storekit2/apple-app-store-server-library-swift/xcode/xcode-signed-renewal-info",
            "storekit2/apple-app-store-server-library-swift/mock_signed_data/renewalInfo",
        ])
    func renewalInfo(path: String) throws {
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(from: Self.data(path)) }
        #expect(error.message == "the data names no app (no `bundleId`)")
        let receipt = try AppleImport.unverifiedReceipt(from: Self.data(path), app: "com.example").receipt
        #expect(receipt.app == "com.example")
        if path.hasSuffix("signedRenewalInfo.json") {
            let raw = try Self.json(path)
            let renewal = try #require(receipt.renewals.first)
            #expect(renewal.originalTransactionId == raw["originalTransactionId"] as? String)
            #expect(renewal.isInBillingRetry == true)
            #expect(renewal.gracePeriodExpiresDate?.millisecondsSince1970 == Self.milliseconds(raw["gracePeriodExpiresDate"]))
        }
    }

    @Test(
        "responses, notifications and app transactions normalize, saying what they could not map",
        arguments: [
            ("storekit2/apple-app-store-server-library-swift/models/getAllSubscriptionStatusesResponse.json", "com.example", 7),
            ("storekit2/apple-app-store-server-library-swift/models/signedNotification.json", "com.example", 3),
            ("storekit2/apple-app-store-server-library-swift/models/appTransaction.json", "com.example", 0),
            ("storekit2/apple-app-store-server-library-swift/xcode/xcode-signed-app-transaction", "com.example.naturelab.backyardbirds.example", 1),
            ("storekit2/real-apple-signed/imdhemy-appstore-iap/test-notification-signed-payload.json", "com.Abilities", 1),
            ("storekit2/apple-app-store-server-library-swift/mock_signed_data/testNotification", "com.example", 1),
            ("storekit2/apple-app-store-server-library-swift/mock_signed_data/transactionInfo", "com.example", 1),
            ("storekit2/apple-app-store-server-library-swift/mock_signed_data/wrongBundleId", "com.example.wrong", 1),
            ("storekit2/apple-app-store-server-library-swift/mock_signed_data/missingX5CHeaderClaim", "com.example", 2),
        ])
    func envelopes(path: String, app: String, warnings: Int) throws {
        let imported = try AppleImport.unverifiedReceipt(from: Self.data(path), name: path)
        #expect(imported.receipt.app == app)
        #expect(imported.warnings.count == warnings, "\(imported.warnings)")
    }

    @Test("a notification's type, subtype, UUID, signing date and consumption reason are kept, read from the signed payload too")
    func notificationInfo() throws {
        let models = "storekit2/apple-app-store-server-library-swift/models/"
        let subscribed = try AppleImport.unverifiedReceipt(from: Self.data(models + "signedNotification.json"))
        #expect(
            subscribed.notifications == [
                NotificationInfo(
                    type: "SUBSCRIBED", subtype: "INITIAL_BUY", uuid: "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
                    signedDate: Instant(millisecondsSince1970: 1_698_148_900_000))
            ])
        let consumption = try AppleImport.unverifiedReceipt(from: Self.data(models + "signedConsumptionRequestNotification.json"))
        #expect(consumption.notifications.map(\.consumptionRequestReason) == ["UNINTENDED_PURCHASE"])
        #expect(consumption.notifications.map(\.type) == ["CONSUMPTION_REQUEST"])
        // A compact JWS: the payload's own fields.
        let test = try AppleImport.unverifiedReceipt(
            from: Self.data("storekit2/apple-app-store-server-library-swift/mock_signed_data/testNotification"))
        #expect(
            test.notifications == [
                NotificationInfo(
                    type: "TEST", uuid: "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6", signedDate: Instant(millisecondsSince1970: 1_681_314_324_000))
            ])
        // A transaction alone is no notification; the values round-trip through JSON.
        let transaction = try AppleImport.unverifiedReceipt(
            from: Self.data("storekit2/apple-app-store-server-library-swift/mock_signed_data/transactionInfo"))
        #expect(transaction.notifications.isEmpty)
        let encoded = try JSONEncoder().encode(subscribed.notifications)
        #expect(try JSONDecoder().decode([NotificationInfo].self, from: encoded) == subscribed.notifications)
    }

    @Test("the app transaction carries the original application version")
    func appTransaction() throws {
        let path = "storekit2/apple-app-store-server-library-swift/models/appTransaction.json"
        let raw = try Self.json(path)
        let receipt = try AppleImport.unverifiedReceipt(from: Self.data(path)).receipt
        #expect(receipt.originalApplicationVersion == raw["originalApplicationVersion"] as? String)
    }

    @Test("a JWS header without x5c is said to be unverifiable; a legacy SKPaymentTransaction is not recognized")
    func negativeJWS() throws {
        let missing = try AppleImport.unverifiedReceipt(
            from: Self.data("storekit2/apple-app-store-server-library-swift/mock_signed_data/missingX5CHeaderClaim"))
        #expect(missing.warnings.contains { $0.message.contains("no `x5c` certificate chain") })
        let error = try #require(throws: ReceiptError.self) {
            try AppleImport.unverifiedReceipt(from: Self.data("storekit2/apple-app-store-server-library-swift/mock_signed_data/legacyTransaction"))
        }
        #expect(error.message == "unrecognized receipt format")
        #expect(error.help?.contains("PKCS#7 app receipt") == true)
        // The library's advice is the library's: no command-line option.
        #expect(error.help?.contains("--from") == false && error.help?.contains("`format:`") == true)
    }

    @Test(
        "Apple's ONE_TIME_CHARGE notification is read as any with a transaction; an offer code on a one-time purchase is kept and changes no access")
    func oneTimeCharge() throws {
        func base64url(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        func decode(_ part: Substring) throws -> [String: Any] {
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            let data = try #require(Data(base64Encoded: text))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let body = try String(contentsOfFile: CLITests.products + "/service-example/05-transaction.json", encoding: .utf8)
        let signed = try #require((try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])?["signedTransactionInfo"])
        let parts = signed.split(separator: ".")
        var transaction = try decode(parts[1])
        let plain = try AppleImport.unverifiedReceipt(fromAppStore: Data(signed.utf8)).receipt
        transaction["offerType"] = 3
        transaction["offerIdentifier"] = "SPRING"
        func jws(_ object: [String: Any]) throws -> String {
            "\(parts[0]).\(base64url(try JSONSerialization.data(withJSONObject: object))).\(parts[2])"
        }
        let notification: [String: Any] = [
            "notificationType": "ONE_TIME_CHARGE", "notificationUUID": "11111111-0000-4000-8000-000000000001", "version": "2.0",
            "signedDate": 1_774_137_601_000,
            "data": ["bundleId": "com.example.diagrams", "environment": "Production", "signedTransactionInfo": try jws(transaction)],
        ]
        let imported = try AppleImport.unverifiedReceipt(
            from: try JSONSerialization.data(withJSONObject: ["signedPayload": try jws(notification)]))
        #expect(imported.notifications.map(\.type) == ["ONE_TIME_CHARGE"])
        let bought = try #require(imported.receipt.transactions.first)
        #expect(bought.offerType == .offerCode && bought.offerId == "SPRING")
        let at = Fixtures.instant("2026-04-01T00:00:00Z")
        let withCode = try Fixtures.examples.evaluate(app: "com.example.diagrams", receipts: [imported.receipt], at: at)
        let without = try Fixtures.examples.evaluate(app: "com.example.diagrams", receipts: [plain], at: at)
        #expect(withCode.balances == without.balances && withCode.features == without.features)
        #expect(withCode.balance(of: "stencils") == 20)
    }

    @Test("signed data cut short is an error saying so, never an empty receipt: in a notification and alone")
    func truncatedJWS() throws {
        let body = try String(contentsOfFile: CLITests.products + "/service-example/01-subscribed.json", encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String])
        let jws = try #require(object["signedPayload"])
        let whole = try AppleImport.unverifiedReceipt(fromAppStore: Data(body.utf8))
        #expect(!whole.receipt.transactions.isEmpty)
        for cut in [jws.count / 2, jws.firstIndex(of: ".").map { jws.distance(from: jws.startIndex, to: $0) } ?? 10, 20] {
            let short = String(jws.prefix(cut))
            let notification = #"{"signedPayload": "\#(short)"}"#
            let inside = try #require(throws: ReceiptError.self) {
                try AppleImport.unverifiedReceipt(from: Data(notification.utf8), app: "com.example.diagrams")
            }
            #expect(inside.path == "signedPayload" && inside.message.contains("is not a compact JWS:"), "\(inside)")
            #expect(inside.location?.column == 19, "located at the value: \(inside)")
            let alone = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(from: Data(short.utf8)) }
            #expect(alone.message.hasPrefix("a compact JWS that is damaged: "), "\(alone)")
            #expect(alone.message.hasSuffix("so it was cut short"), "\(alone)")
            #expect(alone.help?.contains("--from") == false)
        }
        // A payload with a byte no JWS has says which.
        let damaged = try #require(throws: ReceiptError.self) {
            try AppleImport.unverifiedReceipt(fromAppStore: Data(#"{"signedTransactionInfo": "eyJh.b!c.d"}"#.utf8), app: "com.example.diagrams")
        }
        #expect(damaged.message.contains("byte 7 (`!`) is not base64url"), "\(damaged)")
    }

    @Test("every fixture that is receipt data is either normalized or refused with a located error")
    func everyFixture() throws {
        let root = Self.fixtures
        let paths = try FileManager.default.subpathsOfDirectory(atPath: root.path)
            .filter { ["verifyreceipt/", "receipts-pkcs7/", "storekit2/"].contains(where: $0.hasPrefix) }
            .filter { !$0.hasSuffix(".decoded.json") && !$0.hasSuffix(".cer") && !$0.hasSuffix(".der") }
            .filter { path in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
                    && !isDirectory.boolValue
            }
        #expect(paths.count >= 45)
        var normalized = 0
        for path in paths {
            do {
                // The app option only fills in data that names no app.
                let data = try Self.data(path)
                let imported = try Self.importFillingApp(data, name: path)
                // What comes out is a valid normalized receipt: it round-trips through the strict decoder.
                let again = try ReceiptDecoder.decode(Data(imported.receipt.json.utf8))
                #expect(again == imported.receipt, "\(path)")
                normalized += 1
            } catch let error as ReceiptError {
                #expect(error.location?.file == path)
                #expect(Self.refused.contains { path.hasSuffix($0) }, "\(path): \(error)")
            } catch {
                Issue.record("\(path): \(error)")
            }
        }
        #expect(normalized == paths.count - Self.refused.count)
    }

    /// The fixtures that are not receipt data: a failed verifyReceipt response, an edited one, a
    /// legacy SKPaymentTransaction receipt, and the requests a developer sends Apple's Advanced
    /// Commerce API (an offer, a migration, a refund request).
    static let refused = [
        "inAppPurchaseInvalidReceiptResponse.json", "simple.json", "legacyTransaction", "advancedCommerceOffer.json",
        "advancedCommerceSubscriptionMigrateRequest.json", "advancedCommerceRequestRefundRequest.json",
    ]

    /// Imports Apple data, giving an app only when the data names none.
    static func importFillingApp(_ data: Data, name: String) throws -> ImportedReceipt {
        let result = Result { () throws(ReceiptError) -> ImportedReceipt in try AppleImport.unverifiedReceipt(from: data, name: name) }
        if case .failure(let error) = result, error.message.contains("names no app") {
            return try AppleImport.unverifiedReceipt(from: data, name: name, app: "com.example.given")
        }
        return try result.get()
    }

    // MARK: Robustness

    static let samples = [
        "verifyreceipt/levibostian-dollabill-apple/consumable_in_latest_receipt_info.json",
        "storekit2/apple-app-store-server-library-swift/xcode/xcode-signed-transaction",
        "receipts-pkcs7/tikhop-TPInAppReceipt/receipt-xcode",
        "storekit2/apple-app-store-server-library-swift/models/signedRenewalInfo.json",
    ]

    /// Imports `input` as the app it names (or `com.example` when it names none), expecting a
    /// receipt that reads back the same through the writer or an error located inside the input.
    static func checkImport(_ input: Data, _ what: @autoclosure () -> String) {
        let outcome: Result<Receipt, ReceiptError>
        do {
            outcome = .success(try Self.importFillingApp(input, name: "mutated").receipt)
        } catch let error as ReceiptError {
            outcome = .failure(error)
        } catch {
            Issue.record("\(what()): not a ReceiptError: \(error)")
            return
        }
        if let problem = roundTripOrLocated(outcome, input: input) { Issue.record("\(what()): \(problem)") }
    }

    @Test("truncated at every length, each format gives a receipt that reads back the same, or a located error", arguments: samples)
    func truncation(path: String) throws {
        let data = try Self.data(path)
        // PKCS#7 is also tried as raw DER, where every cut lands inside the ASN.1.
        var inputs = [data]
        if let der = AppReceiptMapper.der(data), data.first != 0x30 { inputs.append(Data(der)) }
        for input in inputs {
            for length in stride(from: 0, to: input.count, by: max(1, input.count / 1500)) {
                Self.checkImport(Data(input.prefix(length)), "\(path) cut at \(length)")
                _ = AppleImport.detect(input.prefix(length))
            }
        }
        Self.checkImport(data, path)
        #expect((try? Self.importFillingApp(data, name: path)) != nil, "the whole sample imports")
    }

    @Test("random byte flips give receipts that read back the same, or located errors", arguments: samples)
    func byteFlips(path: String) throws {
        let original = try Self.data(path)
        let der = AppReceiptMapper.der(original).map { Data($0) } ?? original
        var random = SplitMix64(seed: UInt64(path.count))
        for round in 0..<600 {
            var data = round % 2 == 0 ? original : der
            for _ in 0..<(1 + Int(random.next() % 4)) {
                data[Int(random.next() % UInt64(data.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            Self.checkImport(data, "\(path) round \(round)")
        }
    }
}
