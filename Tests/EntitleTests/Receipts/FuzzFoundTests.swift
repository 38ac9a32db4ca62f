import Foundation
import Testing

@testable import Entitle
@testable import EntitleCommandLine

/// Every input that ever crashed or stalled entitle, replayed with the outcome it must have now
/// (Corpus/fuzz-found/cases.json), and the large inputs behind the stalls, generated here at a
/// size that took seconds before and takes milliseconds now.
@Suite("Inputs that crashed or stalled")
struct FuzzFoundTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var exitCode: Int32
        var stderr: [String]
        var stdout: String?
        var testDescription: String { name }
    }

    static let directory = Fixtures.corpusDirectory.appendingPathComponent("fuzz-found")

    static let cases: [Case] = {
        let url = directory.appendingPathComponent("cases.json")
        guard let data = try? Data(contentsOf: url),
            let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let list = root["cases"] as? [[String: Any]]
        else { return [] }
        return list.map { entry in
            let arguments = (entry["arguments"] as? [String] ?? []).map {
                $0.replacingOccurrences(of: "{dir}", with: directory.path)
                    .replacingOccurrences(of: "{products}", with: Fixtures.productsDirectory)
            }
            var stdout: String?
            if let expected = entry["stdout"], let json = try? JSONSerialization.data(withJSONObject: expected) {
                stdout = String(decoding: json, as: UTF8.self)
            }
            return Case(
                name: entry["name"] as? String ?? "?", arguments: arguments,
                exitCode: Int32(entry["exitCode"] as? Int ?? -1), stderr: entry["stderr"] as? [String] ?? [],
                stdout: stdout)
        }
    }()

    @Test("the replay list is present")
    func present() {
        #expect(Self.cases.count >= 20)
    }

    @Test("each input that crashed gives its located error or its correct result", arguments: cases)
    func replay(_ replayCase: Case) throws {
        let output = EntitleCommand.run(replayCase.arguments, environment: CLITests.environment())
        #expect(output.exitCode == replayCase.exitCode, "\(output.standardError)")
        for expected in replayCase.stderr {
            #expect(output.standardError.contains(expected), "expected `\(expected)` in:\n\(output.standardError)")
        }
        if let stdout = replayCase.stdout {
            let problem = JSONSubset.mismatch(expected: try JSONSubset.parse(stdout), actual: try JSONSubset.parse(output.standardOutput))
            #expect(problem == nil, "\(problem ?? "")")
        }
    }

    // MARK: Extreme values through the library

    @Test("receipts built in code with instants anywhere in Int64 evaluate without trapping, at any instant")
    func extremeInstantsInCode() throws {
        let catalog = Fixtures.diagrams
        let extremes: [Int64] = [
            .min, .min + 1, -62_135_596_800_001, -62_135_596_800_000, 0,
            253_402_300_799_999, 253_402_300_800_000, .max - 86_399_998, .max - 1, .max,
        ]
        for purchase in extremes {
            let receipt = Receipt(
                app: catalog.app,
                transactions: [
                    Transaction(
                        productId: "com.example.diagrams.daypass", transactionId: "1",
                        purchaseDate: Instant(millisecondsSince1970: purchase), quantity: 1000),
                    Transaction(
                        productId: "com.example.diagrams.trial", transactionId: "2",
                        purchaseDate: Instant(millisecondsSince1970: purchase),
                        originalPurchaseDate: Instant(millisecondsSince1970: purchase)),
                    Transaction(
                        productId: "com.example.diagrams.sync.monthly", transactionId: "3",
                        purchaseDate: Instant(millisecondsSince1970: purchase),
                        expiresDate: Instant(millisecondsSince1970: .max)),
                    Transaction(
                        productId: "com.example.diagrams.stencils.10", transactionId: "4",
                        purchaseDate: Instant(millisecondsSince1970: purchase), quantity: Int.max),
                ], renewals: [Renewal(originalTransactionId: "3", gracePeriodExpiresDate: Instant(millisecondsSince1970: .max))],
                consumptions: [
                    Consumption(id: "c", currency: "stencils", amount: .min, date: Instant(millisecondsSince1970: purchase)),
                    Consumption(id: "d", currency: "stencils", amount: .max, date: Instant(millisecondsSince1970: purchase)),
                ])
            #expect(receipt.limitViolation != nil)
            for at in extremes {
                let result = catalog.evaluate([receipt], at: Instant(millisecondsSince1970: at))
                // Evaluated at the nearer end of years 0001-9999, so the result reads back.
                #expect(result.at == Instant(millisecondsSince1970: at).clampedToRange)
                #expect(try JSONDecoder().decode(EntitlementsRecord.self, from: Data(result.json.utf8)) == EntitlementsRecord(result))
                _ = result.text
            }
        }
    }

    @Test("durations added near the ends of the range saturate instead of overflowing")
    func durationSaturates() {
        let latest = Instant.latest.millisecondsSince1970
        let earliest = Instant.earliest.millisecondsSince1970
        #expect(ISODuration.add(months: 12, days: 0, milliseconds: 0, to: latest - 1) == latest)
        #expect(ISODuration.add(months: 0, days: 0, milliseconds: 86_400_000, to: .max) == latest)
        #expect(ISODuration.add(months: 0, days: 0, milliseconds: 86_400_000, to: .min) == earliest + 86_400_000)
        #expect(ISODuration.add(months: 1200, days: 37_200, milliseconds: 0, times: 1000, to: 0) == latest)
        #expect(ISODuration.add(months: Int.max, days: .max, milliseconds: .max, times: .max, to: 0) == latest)
        #expect(ISODuration.add(months: -1, days: 0, milliseconds: 0, times: .max, to: 0) == earliest)
        // Quantity multiplies the duration in one calendar step: Jan 31 + 3 x P1M is Apr 30.
        let january31 = Instant(rfc3339: "2026-01-31T10:00:00Z")!.millisecondsSince1970
        #expect(
            ISODuration.add(months: 1, days: 0, milliseconds: 0, times: 3, to: january31)
                == Instant(rfc3339: "2026-04-30T10:00:00Z")!.millisecondsSince1970)
    }

    // MARK: The stalls, at sizes that took seconds

    /// A normalized receipt of one subscription chain: `count` transactions and `count` renewal
    /// entries with a grace period (../shared/fuzz-found/08).
    static func graceChain(_ count: Int) -> Data {
        var text = #"{"app":"com.example.diagrams","transactions":["#
        for index in 0..<count {
            if index > 0 { text += "," }
            text +=
                #"{"productId":"com.example.diagrams.sync.monthly","transactionId":"\#(index)","originalTransactionId":"1","purchaseDate":"2026-01-01T00:00:00Z","expiresDate":"2026-02-01T00:00:00Z"}"#
        }
        text += #"],"renewals":["#
        for index in 0..<count {
            if index > 0 { text += "," }
            text += #"{"originalTransactionId":"1","gracePeriodExpiresDate":"2026-03-01T00:00:00Z"}"#
        }
        return Data((text + "]}").utf8)
    }

    @Test("a chain of 20,000 transactions and 20,000 renewals with grace (took 6.5 s) gives the grace period")
    func graceRenewals() throws {
        let receipt = try ParsedReceipt(json: Self.graceChain(20_000))
        let result = Fixtures.diagrams.evaluate([receipt], at: Instant(rfc3339: "2026-02-15T00:00:00Z")!)
        #expect(result.product("com.example.diagrams.sync.monthly")?.state == .gracePeriod)
        #expect(result.coverage(of: "cloud.sync")?.until == Instant(rfc3339: "2026-03-01T00:00:00Z"))
        #expect(result.reevaluateAt == Instant(rfc3339: "2026-03-01T00:00:00Z"))
    }

    @Test("the same chain as a verifyReceipt response (took 7.9 s)")
    func graceRenewalsVerifyReceipt() throws {
        var text = #"{"status":0,"receipt":{"bundle_id":"com.example.diagrams","in_app":[]},"latest_receipt_info":["#
        for index in 0..<20_000 {
            if index > 0 { text += "," }
            text +=
                #"{"product_id":"com.example.diagrams.sync.monthly","transaction_id":"\#(index)","original_transaction_id":"1","purchase_date_ms":"1767225600000","expires_date_ms":"1769904000000"}"#
        }
        text += #"],"pending_renewal_info":["#
        for index in 0..<20_000 {
            if index > 0 { text += "," }
            text +=
                #"{"original_transaction_id":"1","auto_renew_product_id":"com.example.diagrams.sync.monthly","grace_period_expires_date_ms":"1772323200000"}"#
        }
        let imported = try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data((text + "]}").utf8))
        let result = Fixtures.diagrams.evaluate([imported.receipt], at: Instant(rfc3339: "2026-02-15T00:00:00Z")!)
        #expect(result.coverage(of: "cloud.sync")?.until == Instant(rfc3339: "2026-03-01T00:00:00Z"))
    }

    @Test("a one-line catalog with 20,000 errors (took 47 s): the first 1,000 located exactly, the rest counted")
    func oneLineCatalog() throws {
        var text = #"{"app":"com.example.big","features":{"pro":"Pro"},"products":["#
        var offsets: [Int] = []
        for index in 0..<20_000 {
            if index > 0 { text += "," }
            offsets.append(text.utf8.count + #"{"id":"#.utf8.count)
            text += #"{"id":"com.example.big.same","type":"non-consumable","name":"P\#(index)","priceTier":1,"grants":["pro"]}"#
        }
        text += "]}"
        let compilation = Portfolio.compile([CatalogSource(name: "big.json", data: Data(text.utf8))])
        #expect(compilation.diagnostics.count == CatalogLimits.maxDiagnosticsPerFile + 1)
        let duplicates = compilation.errors.filter { $0.code == .duplicateProduct }
        // One limit error (more than 10,000 products) came first, then 999 duplicates.
        #expect(duplicates.count == 999)
        // Columns are 1-based byte columns on this one ASCII line.
        #expect(duplicates.last?.location?.column == offsets[999] + 1)
        #expect(duplicates.last?.location?.line == 1)
        #expect(compilation.errors.contains { $0.code == .limitExceeded && $0.path == "products[10000]" })
        let rest = try #require(compilation.diagnostics.last)
        #expect(rest.severity == .error && rest.code == .limitExceeded)
        #expect(rest.message == "19000 more errors and 0 more warnings not shown")
        // Locating stays linear however many offsets one line has.
        let table = LineTable(Data(text.utf8))
        for offset in offsets { #expect(table.location(of: offset) == (1, offset + 1)) }
    }

    @Test("a catalog whose first thousand diagnostics are warnings still fails on the errors after them")
    func errorsPastTheLimit() {
        // 1,200 products that grant nothing (a warning each), then one granting an undeclared feature.
        var text = #"{"app":"com.example.big","features":{"pro":"Pro"},"products":["#
        for index in 0..<1_200 { text += #"{"id":"p\#(index)","type":"non-consumable","name":"P","grants":[]},"# }
        text += #"{"id":"last","type":"non-consumable","name":"P","grants":["nope"]}]}"#
        let compilation = Portfolio.compile([CatalogSource(name: "big.json", data: Data(text.utf8))])
        #expect(compilation.errors.map(\.message) == ["1 more error and 201 more warnings not shown"], "200 grants-nothing, 1 unused pro")
        #expect(compilation.portfolio == nil)
    }

    @Test("undeclared grants by the thousand get suggestions until the budget is spent, then plain help")
    func manyUndeclaredGrants() throws {
        var features = #"{"#
        for index in 0..<2_000 { features += (index > 0 ? "," : "") + #""feature\#(index)":"F""# }
        var text = #"{"app":"com.example.big","features":\#(features)},"products":["#
        for index in 0..<9_000 {
            if index > 0 { text += "," }
            text += #"{"id":"com.example.big.p\#(index)","type":"non-consumable","name":"P","priceTier":1,"grants":["featur\#(index % 2_000)"]}"#
        }
        text += "]}"
        let compilation = Portfolio.compile([CatalogSource(name: "big.json", data: Data(text.utf8))])
        let undeclared = compilation.errors.filter { $0.code == .undeclaredFeature }
        #expect(undeclared.count == CatalogLimits.maxDiagnosticsPerFile)
        #expect(undeclared.first?.help == "did you mean `feature0`?")
        #expect(undeclared.last?.help?.hasPrefix("declare it under `features`") == true)
        #expect(compilation.diagnostics.last?.message.hasPrefix("8000 more errors and ") == true)
    }

    @Test("a 3 MB app id is refused at once, with no edit distance over it")
    func longAppId() throws {
        let data = Data((#"{"app":""# + String(repeating: "a", count: 3 << 20) + #"","transactions":[]}"#).utf8)
        let error = try #require(throws: ReceiptError.self) { try ParsedReceipt(json: data, name: "long.json") }
        #expect(error.code == .limitExceeded)
        #expect(error.location?.column == 8)
        // The library's lookup of an unknown app suggests nothing for a long name, quickly.
        let missing = PortfolioError(missingApp: String(repeating: "b", count: 3 << 20), known: ["com.example.diagrams"])
        #expect(missing.description.count < 300)
    }

    @Test("a 1 MB member name is shown by its start and length, not repeated whole in errors")
    func longKeys() throws {
        let key = String(repeating: "A", count: 1_000_000)
        for json in [#"{"\#(key)":1,"app":"a"}"#, #"{"app":"a","transactions":[{"\#(key)":1}]}"#] {
            let error = try #require(throws: ReceiptError.self) { try ParsedReceipt(json: Data(json.utf8), name: "k.json") }
            #expect(error.code == .unknownKey)
            #expect(error.message.hasPrefix("unknown key `" + String(repeating: "A", count: 60) + "…(1000000 bytes)` in "))
            #expect(error.description.utf8.count < 1_000)
        }
        let duplicate = #"{"app":"a","\#(key)":1,"\#(key)":2}"#
        let error = try #require(throws: ReceiptError.self) { try ParsedReceipt(json: Data(duplicate.utf8), name: "d.json") }
        #expect(error.description.utf8.count < 1_000)
        let catalog =
            #"{"app":"com.example.k","features":{"pro":"Pro","\#(key)":"x"},"\#(key)":1,"products":[{"id":"p","type":"non-consumable","name":"P","grants":["pro","\#(key)"]}]}"#
        let diagnostics = Portfolio.compile([CatalogSource(name: "k.json", data: Data(catalog.utf8))]).diagnostics
        #expect(!diagnostics.isEmpty)
        for diagnostic in diagnostics {
            // Messages that echo a value whole are cut in the middle at 4 KiB.
            #expect(diagnostic.description.utf8.count < 3 * Diagnostic.maxTextBytes + 500, "\(diagnostic.code)")
        }
        #expect(Diagnostic.bounded(String(repeating: "é", count: 3000)).utf8.count < Diagnostic.maxTextBytes + 64)
        #expect(Diagnostic.excerpt("short") == "short")
    }

    @Test("6 MB of JWS-shaped text, alone and in JSON, is refused in one pass over its bytes")
    func largeJWS() throws {
        let part = String(repeating: "A", count: 2 << 20)
        let jws = part + "." + part + "." + part
        #expect(AppleImport.detect(Data(jws.utf8)) == .apple(.appStore))
        #expect(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(fromAppStore: Data(jws.utf8)) }
        let inJSON = Data((#"{"signedTransactions":[""# + jws + #""]}"#).utf8)
        let error = try #require(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(from: inJSON, name: "big.json") }
        #expect(error.message.contains("JWS payload"))
        let plain = Data(("\"" + part + "\"").utf8)
        #expect(AppleImport.detect(plain) == nil)
    }

    // MARK: Ids crafted to share one hash

    @Test("duplicate detection gives the same answer when every hash collides")
    func collidingHashes() {
        let ids = (0..<3_000).map { "id\($0 % 1_000)" }
        let hashed = DuplicateFinder.firstOccurrences(
            count: ids.count, hash: { UInt64(ids[$0].hashValue & 0xFFFF) }, equal: { ids[$0] == ids[$1] }, precedes: { ids[$0] < ids[$1] })
        let colliding = DuplicateFinder.firstOccurrences(
            count: ids.count, hash: { _ in 42 }, equal: { ids[$0] == ids[$1] }, precedes: { ids[$0] < ids[$1] })
        #expect(hashed == colliding)
        #expect(colliding[2_500] == 500)
        #expect(colliding[999] == 999)
    }

    @Test("evaluation deduplicates transactions whose hashes all collide, with the same result")
    func collidingTransactionIds() throws {
        var text = #"{"app":"com.example.diagrams","transactions":["#
        for index in 0..<4_000 {
            if index > 0 { text += "," }
            // Each transaction twice: the second copy refunds the even ones.
            let cancel = index % 2 == 0 ? #","cancellationDate":"2026-01-03T00:00:00Z""# : ""
            text +=
                #"{"productId":"com.example.diagrams.stencils.10","transactionId":"t\#(index / 2)","purchaseDate":"2026-01-01T00:00:00Z"\#(cancel)}"#
        }
        text += #"],"consumptions":[{"id":"c","currency":"stencils","amount":5,"date":"2026-01-02T00:00:00Z"}]}"#
        let receipt = try ParsedReceipt(json: Data(text.utf8))
        var fields = receipt.fields
        for index in fields.transactions.indices { fields.transactions[index].transactionIdHash = 7 }
        let colliding = ParsedReceipt(fields)
        for at in ["2026-01-02T00:00:00Z", "2026-01-04T00:00:00Z"] {
            let instant = Instant(rfc3339: at)!
            let expected = Fixtures.diagrams.evaluate([receipt], at: instant)
            let actual = Fixtures.diagrams.evaluate([colliding], at: instant)
            #expect(actual.balance(of: "stencils") == expected.balance(of: "stencils"))
            #expect(actual.json == expected.json)
        }
        #expect(Fixtures.diagrams.evaluate([colliding], at: Instant(rfc3339: "2026-01-02T00:00:00Z")!).balance(of: "stencils") == 19_995)
        #expect(Fixtures.diagrams.evaluate([colliding], at: Instant(rfc3339: "2026-01-04T00:00:00Z")!).balance(of: "stencils") == -5)
    }

    // MARK: Found by a hostile-input review

    @Test("Apple's millisecond strings are decimal digits only: hex floats, exponents and signs are refused")
    func decimalMilliseconds() throws {
        for value in ["0x1p40", "1e12", "+1767225600000", "inf", "1767225600000.", ".5"] {
            let json =
                #"{"status": 0, "receipt": {"bundle_id": "com.example.diagrams", "in_app": [{"product_id": "p", "transaction_id": "1", "purchase_date_ms": "\#(value)"}]}}"#
            #expect(throws: ReceiptError.self, "\(value)") { try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(json.utf8)) }
        }
        let fraction =
            #"{"status": 0, "receipt": {"bundle_id": "com.example.diagrams", "in_app": [{"product_id": "p", "transaction_id": "1", "purchase_date_ms": "1767225600000.5"}]}}"#
        let receipt = try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(fraction.utf8)).receipt
        #expect(receipt.transactions.first?.purchaseDate == Instant(millisecondsSince1970: 1_767_225_600_000))
    }

    @Test("verifyReceipt's optional fields may be null")
    func verifyReceiptNulls() throws {
        let json =
            #"{"status": 0, "receipt": {"bundle_id": "com.example.diagrams", "in_app": [{"product_id": "p", "transaction_id": "1", "purchase_date_ms": "1767225600000", "expires_date_ms": null, "cancellation_date_ms": null, "quantity": null}]}}"#
        let transaction = try #require(try AppleImport.unverifiedReceipt(fromVerifyReceipt: Data(json.utf8)).receipt.transactions.first)
        #expect(transaction.expiresDate == nil && transaction.cancellationDate == nil && transaction.quantity == 1)
    }

    @Test("durations are limited by their length (P100Y), not by the size of one component")
    func durationComponents() {
        #expect(ISODuration("PT1000001S")?.isWithinLimit == true)
        #expect(ISODuration("PT3214080000S")?.isWithinLimit == true, "37,200 days of seconds: P100Y as the limit counts it")
        #expect(ISODuration("PT3214080001S")?.isWithinLimit == false)
        #expect(ISODuration("P101Y")?.isWithinLimit == false)
        #expect(ISODuration("PT4000000001S") == nil)
        // A trial's N days meet the same limit, with the limit's own message.
        let trial = catalogText(
            products:
                #"    { "id": "t", "type": "non-consumable", "name": "100000-day Trial", "priceTier": 0, "trialOf": "com.example.app.full", "grants": ["pro"] }"#
        )
        let errors = Portfolio.compile([CatalogSource(name: "c.json", data: Data(trial.utf8))]).errors
        #expect(errors.map(\.message) == ["a trial of 100000 days is longer than `P100Y` (37200 days), the longest duration a catalog may use"])
    }

    @Test("ids crafted to collide fall back to sorted keys, which find exactly what hashing finds")
    func collidingCatalogIds() {
        let keys = (0..<500).map { "com.example.p\($0)" } + ["", "a", "com.example.p1"]
        let hashed = ByteKeyTable(keys)
        let sorted = ByteKeyTable(keys, probeBudget: 0)
        for key in keys + ["nope", "com.example.p", "com.example.p5000"] {
            #expect(hashed.find(key) == sorted.find(key), "\(key)")
        }
        #expect(sorted.find("com.example.p1") == 1, "the first of equal keys")
        #expect(sorted.find("nope") == -1)
    }

    @Test("a test file with 4,000 receipts written in it, and a customer line with 80,000 receipts, read in one pass")
    func manyInlineReceipts() throws {
        let receipt = #"{"app": "com.example.diagrams", "transactions": []}"#
        let text =
            #"{"catalog": "\#(Fixtures.productsDirectory)", "app": "com.example.diagrams", "receipts": ["#
            + Array(repeating: receipt, count: 4_000).joined(separator: ",")
            + #"], "cases": [{"name": "x", "at": "2026-01-01", "expect": {"features": {"pro": {"enabled": false}}}}]}"#
        let file = Fixtures.scratch("many", ending: ".test.json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = EntitleCommand.run(["test", file.path], environment: CLITests.environment())
        #expect(output.exitCode == 0, "\(output.standardOutput)\(output.standardError)")
        // The last of 80,000 receipts on one line is located at its column.
        let line = #"{"customer": "c", "receipts": ["# + Array(repeating: "1", count: 80_000).joined(separator: ",") + "]}"
        let parsed = try CustomerLine(Data(line.utf8), name: "corpus", line: 1)
        #expect(parsed.columns.last == line.utf8.count - 2)
    }

    @Test("offers over 10,000 products with grants naming features thousands of times are read in one pass")
    func offersWithManyGrants() throws {
        var catalog = #"{"app": "com.example.big", "features": {"f0": "F"}, "products": ["#
        catalog += (0..<2_000).map { #"{"id": "p\#($0)", "type": "non-consumable", "name": "P", "grants": ["f0"]}"# }.joined(separator: ",")
        catalog += #"], "grandfathered": [{"id": "old", "grants": ["f0"], "originalPurchaseBefore": "2025-01-01T00:00:00Z"}]}"#
        let compiled = try Portfolio.compile([CatalogSource(name: "big.json", data: Data(catalog.utf8))]).get()
        let features = Array(repeating: "f0", count: 2_000)
        let grants = (0..<20).map { Grant(id: "g\($0)", features: features, start: Fixtures.instant("2026-01-01T00:00:00Z")) }
        var receipt = Receipt(app: "com.example.big", grants: grants)
        receipt.originalPurchaseDate = Fixtures.instant("2024-01-01T00:00:00Z")
        let result = try compiled.evaluate(app: "com.example.big", receipts: [receipt], at: Fixtures.instant("2026-02-01T00:00:00Z"))
        #expect(result.offers.count == 2_000)
        #expect(result.offers.allSatisfy { $0.reason == .owned })
        #expect(result.feature("f0")?.sources == ["grandfathered:old"] + (0..<20).map { "grant:g\($0)" }.sorted())
    }

    @Test("constructed OCTET STRINGs nested in indefinite lengths are joined in one pass, in order")
    func nestedIndefiniteOctets() throws {
        // 26 levels of `24 80 ... 00 00`, each holding a primitive piece before the next level.
        var bytes: [UInt8] = []
        var expected: [UInt8] = []
        for level in 0..<26 {
            bytes += [0x24, 0x80, 0x04, 0x02, UInt8(level), 0xAA]
            expected += [UInt8(level), 0xAA]
        }
        bytes += [0x24, 0x04, 0x04, 0x02, 0xBB, 0xCC]  // a definite constructed piece at the bottom
        expected += [0xBB, 0xCC]
        bytes += Array(repeating: [0x00, 0x00], count: 26).flatMap { $0 }
        var reader = BERReader(bytes[...])
        let element = try reader.next()
        #expect(try BERReader.octets(element) == expected)
        #expect(reader.isAtEnd)
        // Too deep, or a piece that is not an OCTET STRING, is an error.
        let deep = Array(repeating: [UInt8(0x24), 0x80], count: 40).flatMap { $0 } + Array(repeating: 0, count: 80)
        var deepReader = BERReader(deep[...])
        #expect(throws: BERReader.Failure.self) { try BERReader.octets(try deepReader.next()) }
        var wrong = BERReader([0x24, 0x03, 0x02, 0x01, 0x05][...])
        #expect(throws: BERReader.Failure.self) { try BERReader.octets(try wrong.next()) }
    }

    @Test("Apple JSON nested past its limit is named as Apple's data and gets the nesting error")
    func deepAppleJSON() throws {
        let json =
            #"{"status": 0, "receipt": {"bundle_id": "com.example.diagrams", "in_app": [], "x": "# + String(repeating: "[", count: 70)
            + String(repeating: "]", count: 70) + "}}"
        #expect(AppleImport.detect(Data(json.utf8)) == .apple(.verifyReceipt))
        #expect(throws: ReceiptError.self) { try AppleImport.unverifiedReceipt(from: Data(json.utf8)) }
        do {
            _ = try AppleImport.unverifiedReceipt(from: Data(json.utf8))
        } catch {
            #expect(error.message == "JSON nested deeper than 64 levels")
        }
    }
}
