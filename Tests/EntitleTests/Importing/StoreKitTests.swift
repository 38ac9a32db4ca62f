import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

@Suite("StoreKit configurations: import and drift", .enabled(if: Fixtures.sharedFixturesAvailable, "needs the shared App Store fixtures"))
struct StoreKitTests {
    static let files = [
        "storekit-config/apple-sample-backyard-birds/Store.storekit",
        "storekit-config/apple-sample-food-truck/Products.storekit",
        "storekit-config/revenuecat-purchases-ios/PurchaseTesterStoreKitConfiguration.storekit",
        "storekit-config/revenuecat-purchases-ios/UnitTestsConfiguration.storekit",
    ]

    static func path(_ file: String) -> String { Fixtures.sharedFixtures.appendingPathComponent(file).path }

    static func imported(_ file: String) -> String {
        let output = EntitleCommand.run(["import", path(file), "--app", "com.example.imported"], environment: CLITests.environment())
        #expect(output.exitCode == 0, "\(output.standardError)")
        return output.standardOutput
    }

    @Test("every .storekit fixture imports to a catalog validate accepts, with no drift from its file", arguments: files)
    func importsValid(_ file: String) throws {
        let catalog = Self.imported(file)
        let compilation = Portfolio.compile([CatalogSource(name: "imported.json", data: Data(catalog.utf8))])
        #expect(compilation.errors.isEmpty, "\(compilation.errors.map(\.description))")
        let configuration = try StoreKitConfiguration(data: Data(contentsOf: URL(fileURLWithPath: Self.path(file))), name: file)
        let imported = try #require(compilation.compiledCatalogs.first)
        #expect(imported.products.map(\.id) == configuration.products.map(\.id))
        #expect(StoreKitDrift.diagnostics(CatalogSource(name: "imported.json", data: Data(catalog.utf8)), configuration: configuration).isEmpty)
        #expect(catalog.contains(#""$comment": "Imported from "#))
    }

    @Test("a deliberate drift (a changed duration, a missing product) is reported, located in the catalog", arguments: files)
    func drift(_ file: String) throws {
        let configuration = try StoreKitConfiguration(data: Data(contentsOf: URL(fileURLWithPath: Self.path(file))), name: file)
        var catalog = try #require(try JSONSerialization.jsonObject(with: Data(Self.imported(file).utf8)) as? [String: Any])
        var products = try #require(catalog["products"] as? [[String: Any]])
        let removed = try #require(products.last { $0["type"] as? String != "auto-renewable-subscription" } ?? products.first)
        products.removeAll { $0["id"] as? String == removed["id"] as? String }
        let changed = try #require(products.firstIndex { $0["type"] as? String == "auto-renewable-subscription" })
        let original = products[changed]["duration"] as? String
        products[changed]["duration"] = original == "P1W" ? "P2W" : "P1W"
        catalog["products"] = products
        let data = try JSONSerialization.data(withJSONObject: catalog, options: [.prettyPrinted, .sortedKeys])
        let directory = Fixtures.scratch("drift")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try data.write(to: directory.appendingPathComponent("catalog.json"))
        let drift = StoreKitDrift.diagnostics(CatalogSource(name: "catalog.json", data: data), configuration: configuration)
        let id = try #require(products[changed]["id"] as? String)
        #expect(
            drift.contains {
                $0.message == "duration \(products[changed]["duration"]!) here, \(original!) in \(URL(fileURLWithPath: file).lastPathComponent)"
                    && $0.path == "products[\(changed)].duration"
            },
            "\(drift.map(\.description)) \(id)")
        #expect(drift.contains { $0.message.hasPrefix("\(URL(fileURLWithPath: file).lastPathComponent) has product `\(removed["id"]!)`") })
        #expect(drift.allSatisfy { $0.location?.file == "catalog.json" && $0.severity == .warning })
        // Located where the value is: the line of the changed duration in the pretty-printed file.
        let text = String(decoding: data, as: UTF8.self)
        let durationDiagnostic = try #require(drift.first { $0.path.hasSuffix(".duration") })
        let line = text.split(separator: "\n", omittingEmptySubsequences: false)[durationDiagnostic.location!.line - 1]
        #expect(line.contains(#""duration" : "\#(products[changed]["duration"]!)""#))

        let validate = EntitleCommand.run(["validate", directory.path, "--storekit", Self.path(file)], environment: CLITests.environment())
        #expect(validate.exitCode == 0)
        #expect(validate.standardError.contains("warning: products[\(changed)].duration: duration"))
        let strict = EntitleCommand.run(["validate", directory.path, "--storekit", Self.path(file), "--strict"], environment: CLITests.environment())
        #expect(strict.exitCode == 1)
        #expect(strict.standardError.contains("error: products[\(changed)].duration: duration"))
    }

    @Test("import reads groups, levels, periods, intro offers and family sharing; a free N-day Trial becomes a trial")
    func importedFields() throws {
        let storekit = """
            { "identifier": "X", "version": { "major": 4, "minor": 0 }, "settings": { "_unknown": true },
              "products": [
                { "productID": "app.pro", "referenceName": "Pro", "type": "NonConsumable", "displayPrice": "9.99", "familyShareable": true },
                { "productID": "app.trial", "referenceName": "7-day Trial", "type": "NonConsumable", "displayPrice": "0" },
                { "productID": "app.coins", "referenceName": "Coins", "type": "Consumable", "displayPrice": "0.99", "localizations": [] } ],
              "nonRenewingSubscriptions": [
                { "productID": "app.season", "referenceName": "Season", "type": "NonRenewingSubscription", "displayPrice": "4.99" } ],
              "subscriptionGroups": [ { "id": "1234", "name": "Plus", "subscriptions": [
                { "productID": "app.plus.yearly", "referenceName": "Plus Yearly", "type": "RecurringSubscription", "groupNumber": 1,
                  "recurringSubscriptionPeriod": "P1Y", "familyShareable": false,
                  "introductoryOffer": { "paymentMode": "payAsYouGo", "subscriptionPeriod": "P1M", "numberOfPeriods": 3 } },
                { "productID": "app.plus.monthly", "referenceName": "Plus Monthly", "type": "RecurringSubscription", "groupNumber": 2,
                  "recurringSubscriptionPeriod": "P1M", "introductoryOffer": { "paymentMode": "free", "subscriptionPeriod": "P1W" } } ] } ] }
            """
        let configuration = try StoreKitConfiguration(data: Data(storekit.utf8), name: "Test.storekit")
        let catalog = StoreKitCatalog.json(from: configuration, app: nil)
        let compiled = try Portfolio.compile([CatalogSource(name: "imported.json", data: Data(catalog.utf8))]).get().catalogs[0]
        #expect(compiled.app == StoreKitCatalog.placeholderApp)
        let products = Dictionary(uniqueKeysWithValues: compiled.products.map { ($0.id, $0) })
        #expect(products["app.pro"]?.familyShareable == true)
        #expect(products["app.trial"]?.trialOf == "app.pro" && products["app.trial"]?.grants == ["app.pro"])
        #expect(products["app.coins"]?.credits == [CatalogProduct.Credit(currency: "app.coins", amount: 1)])
        #expect(products["app.season"]?.duration?.description == "P1M")
        #expect(products["app.plus.yearly"]?.level == 1 && products["app.plus.monthly"]?.level == 2)
        #expect(products["app.plus.yearly"]?.group == "Plus")
        #expect(products["app.plus.yearly"]?.introOffer?.mode == .payAsYouGo)
        #expect(products["app.plus.yearly"]?.introOffer?.duration.description == "P3M")
        #expect(products["app.plus.monthly"]?.introOffer?.mode == .freeTrial)
        #expect(catalog.contains("non-renewing subscriptions last P1M, which a .storekit file does not say (set the duration of app.season)"))
        #expect(catalog.contains("`app`, which a .storekit file does not say"))
    }

    @Test("a broken .storekit file is a located error")
    func broken() {
        let file = Fixtures.scratch("broken", ending: ".storekit")
        try? Data(#"{ "products": [ { "productID": "a", "type": "Nope" } ] }"#.utf8).write(to: file)
        let output = EntitleCommand.run(["import", file.path], environment: CLITests.environment())
        #expect(output.exitCode == 1)
        #expect(output.standardError == "\(file.path):1:17: error: product `a` has no type entitle knows\n")
        let missing = EntitleCommand.run(
            ["validate", Fixtures.productsDirectory, "--storekit", "/nonexistent.storekit"], environment: CLITests.environment())
        #expect(missing.exitCode == 1)
        #expect(missing.standardError.contains("/nonexistent.storekit:1:1: error: no such StoreKit configuration file"))
        let missingImport = EntitleCommand.run(["import", "/nonexistent.storekit"], environment: CLITests.environment())
        #expect(missingImport.standardError == "/nonexistent.storekit:1:1: error: no such StoreKit configuration file\n")
    }

    @Test("import fails when its catalog would not validate, and warns about what it could not carry over")
    func importChecksItsCatalog() throws {
        func storekit(_ groups: String, products: String = "[]") throws -> String {
            let file = Fixtures.scratch("import", ending: ".storekit")
            try
                #"{"products": \#(products), "subscriptionGroups": [{"id": "G1", "name": "Group", "subscriptions": \#(groups)}], "version": {"major": 3}}"#
                .write(to: file, atomically: true, encoding: .utf8)
            return file.path
        }
        func subscription(_ period: String, intro: String = "") -> String {
            #"{"productID": "a.b", "referenceName": "A", "type": "RecurringSubscription", "groupNumber": 1, "recurringSubscriptionPeriod": "\#(period)"\#(intro)}"#
        }
        let tooLong = try storekit("[\(subscription("P1000Y"))]")
        let refused = EntitleCommand.run(["import", tooLong, "--app", "com.example.x"], environment: CLITests.environment())
        #expect(refused.exitCode == 1)
        #expect(!refused.standardOutput.isEmpty, "the catalog is still printed, to be fixed")
        #expect(refused.standardError.contains("error: products[0].duration: duration `P1000Y` is longer than 100 years"))
        #expect(refused.standardError.contains("entitle: the imported catalog does not validate (1 error, 0 warnings)"))

        let lossy = try storekit(
            "[\(subscription("garbage")), \(subscription("P1M", intro: #", "introductoryOffer": {"paymentMode": "payAsYouGo", "subscriptionPeriod": "P1M", "numberOfPeriods": -1}"#))]",
            products: #"[{"productID": "a.b", "referenceName": "B", "type": "NonConsumable"}]"#)
        let warned = EntitleCommand.run(["import", lossy], environment: CLITests.environment())
        #expect(warned.exitCode == 0, "\(warned.standardError)")
        #expect(warned.standardError.contains("warning: product `a.b`: renewal period `garbage` is not an ISO 8601 duration; the catalog has none"))
        #expect(
            warned.standardError.contains(
                "warning: product `a.b`: introductory offer number of periods is not a whole number from 1 to 100; read as 1"))
        #expect(warned.standardError.contains("warning: product id `a.b` appears 3 times; the first is imported"))
        #expect(warned.standardError.hasSuffix("entitle: 1 product imported; replace the placeholders the catalog's $comment names\n"))
        for path in [tooLong, lossy] { try? FileManager.default.removeItem(atPath: path) }
    }

    @Test("drift shows a file's first 1,000 differences and counts the rest")
    func driftCapped() throws {
        let catalog = CatalogSource(
            name: "c.json",
            data: Data(
                #"{"app": "com.x.y", "features": {"f": "x"}, "products": [{"id": "p.0", "type": "non-consumable", "name": "n", "grants": ["f"]}]}"#
                    .utf8))
        let products = (0...3000).map { #"{"productID": "p.\#($0)", "referenceName": "r", "type": "NonConsumable"}"# }.joined(separator: ",")
        let configuration = try StoreKitConfiguration(
            data: Data(#"{"products": [\#(products)], "version": {"major": 3}}"#.utf8), name: "many.storekit")
        let drift = StoreKitDrift.diagnostics([catalog], configuration: configuration)
        #expect(drift.count == CatalogLimits.maxDiagnosticsPerFile + 1)
        #expect(drift.last?.message == "2000 more differences from many.storekit not shown")
        #expect(drift.last?.code == .limitExceeded)
        let strict = StoreKitDrift.diagnostics([catalog], configuration: configuration, severity: .error)
        #expect(strict.last?.isError == true)
    }

    @Test("a file that is not a StoreKit configuration is refused; an unknown format version is a warning")
    func notAConfiguration() throws {
        let receipt = EntitleCommand.run(["import", CLITests.receipt("diagrams-trial.json")], environment: CLITests.environment())
        #expect(receipt.exitCode == 1)
        #expect(receipt.standardOutput.isEmpty)
        #expect(
            receipt.standardError.contains(
                "error: this is not an Xcode StoreKit configuration: it has none of `products`, `subscriptionGroups`, `version` (it looks like a receipt or a catalog)"
            ))
        let text = try String(contentsOfFile: Self.path(Self.files[0]), encoding: .utf8)
        let major = try #require(text.range(of: #""major" *: *[0-9]+"#, options: .regularExpression))
        let file = Fixtures.scratch("v7", ending: ".storekit")
        try text.replacingCharacters(in: major, with: #""major" : 7"#).write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let later = EntitleCommand.run(["import", file.path], environment: CLITests.environment())
        #expect(later.exitCode == 0)
        #expect(later.standardError.hasPrefix("\(file.path): warning: StoreKit configuration format version 7; entitle reads versions 2 to 5"))
        #expect(!Self.imported(Self.files[0]).isEmpty)
    }
}
