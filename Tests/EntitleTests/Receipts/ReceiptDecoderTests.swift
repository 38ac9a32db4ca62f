import EntitleWorkloads
import Foundation
import Testing

@testable import Entitle

@Suite("Receipt decoding")
struct ReceiptDecoderTests {
    @Test("a product id or original transaction id repeated from the transaction before reads as itself, escapes and prefixes included")
    func repeatedIds() throws {
        func transaction(_ product: String, _ original: String?) -> String {
            #"{"productId": \#(product), "transactionId": "t", "originalTransactionId": \#(original ?? "null"), "purchaseDate": "2026-01-01T00:00:00Z"}"#
        }
        // Raw text after each: what the transaction's product id and original id decode to.
        let cases: [(product: String, original: String?, expected: (String, String?))] = [
            (#""p.pro""#, #""1""#, ("p.pro", "1")),
            (#""p.pro""#, #""1""#, ("p.pro", "1")),
            (#"  "p.pro"  "#, #" "1" "#, ("p.pro", "1")),
            (#""p.pr""#, #""10""#, ("p.pr", "10")),
            (#""p.pro""#, #""1""#, ("p.pro", "1")),
            (#""p.pro2""#, nil, ("p.pro2", nil)),
            (#""a\\b""#, #""x\\y""#, (#"a\b"#, #"x\y"#)),
            (#""a\b""#, #""x\\y""#, ("a\u{8}", #"x\y"#)),
            (#""a\b""#, #""""#, ("a\u{8}", "")),
            (#""é""#, #""""#, ("é", "")),
            (#""é""#, #""""#, ("é", "")),
        ]
        let json = #"{"app": "a", "transactions": ["# + cases.map { transaction($0.product, $0.original) }.joined(separator: ", ") + "]}"
        let receipt = try ReceiptDecoder.decode(Data(json.utf8))
        #expect(receipt.transactions.map(\.productId) == cases.map(\.expected.0))
        #expect(receipt.transactions.map(\.originalTransactionId) == cases.map(\.expected.1))
        // An empty product id after a repeated one is still refused.
        let empty = #"{"app": "a", "transactions": ["# + transaction(#""p""#, nil) + ", " + transaction(#""""#, nil) + "]}"
        #expect(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(empty.utf8)) }
    }

    @Test("a full receipt decodes with defaults filled in")
    func decodes() throws {
        let receipt = try ReceiptDecoder.decode(
            Data(
                """
                {
                  "app": "com.example.diagrams",
                  "transactions": [
                    { "productId": "p", "transactionId": "1", "originalTransactionId": "1",
                      "purchaseDate": "2026-01-01T09:00:00Z", "originalPurchaseDate": "2026-01-01T10:00:00+01:00",
                      "expiresDate": "2026-02-01T09:00:00.5Z", "cancellationDate": null, "quantity": 3,
                      "isTrialPeriod": true, "isIntroOfferPeriod": false, "isUpgraded": null, "ownership": "family-shared" },
                    { "productId": "q\\u00e9", "transactionId": "2", "purchaseDate": "2026-01-02T00:00:00Z" }
                  ],
                  "renewals": [ { "originalTransactionId": "1", "willRenew": false, "gracePeriodExpiresDate": "2026-02-10T00:00:00Z" } ],
                  "consumptions": [ { "id": "c", "currency": "gems", "amount": 2, "date": "2026-01-03T00:00:00Z" },
                                    { "id": "c", "currency": "gems", "amount": 2, "date": "2026-01-03T00:00:00Z" } ],
                  "environment": "sandbox"
                }
                """.utf8))
        #expect(receipt.app == "com.example.diagrams")
        #expect(receipt.environment == "sandbox")
        let first = receipt.transactions[0]
        #expect(first.originalPurchaseDate == first.purchaseDate)
        #expect(first.expiresDate?.millisecondsSince1970 == Instant(rfc3339: "2026-02-01T09:00:00Z")!.millisecondsSince1970 + 500)
        #expect(first.quantity == 3 && first.isTrialPeriod && !first.isUpgraded && first.ownership == .familyShared)
        #expect(first.cancellationDate == nil)
        let second = receipt.transactions[1]
        #expect(second.productId == "qé" && second.quantity == 1 && second.ownership == .purchased)
        #expect(
            receipt.renewals == [
                Renewal(
                    originalTransactionId: "1", willRenew: false,
                    gracePeriodExpiresDate: Instant(rfc3339: "2026-02-10T00:00:00Z"))
            ])
        #expect(receipt.consumptions.count == 1, "an identical repeated consumption counts once")
    }

    struct BadReceipt: Sendable, CustomTestStringConvertible {
        var name: String
        var json: String
        /// Located in `r.json`.
        var expected: ExpectedError
        var testDescription: String { name }

        init(name: String, json: String, message: String, line: Int, column: Int, path: String, token: String? = nil) {
            self.name = name
            self.json = json
            expected = ExpectedError(message: message, location: SourceLocation(file: "r.json", line: line, column: column), path: path, token: token)
        }
    }

    static let bad: [BadReceipt] = [
        BadReceipt(
            name: "not JSON", json: "{\n  \"app\": nope\n}", message: "invalid literal, expected `null`",
            line: 2, column: 10, path: "", token: "nope"),
        BadReceipt(
            name: "missing app", json: "{ \"transactions\": [] }", message: "missing required key `app` in receipt",
            line: 1, column: 1, path: ""),
        BadReceipt(
            name: "unknown key",
            json:
                "{ \"app\": \"a\", \"transactions\": [\n  { \"productId\": \"p\", \"transactionID\": \"1\", \"purchaseDate\": \"2026-01-01T00:00:00Z\" }\n] }",
            message: "unknown key `transactionID` in transaction", line: 2, column: 23, path: "transactions[0].transactionID",
            token: "\"transactionID\""),
        BadReceipt(
            name: "bad instant",
            json:
                "{ \"app\": \"a\", \"transactions\": [\n  { \"productId\": \"p\", \"transactionId\": \"1\", \"purchaseDate\": \"2026-02-30T00:00:00Z\" }\n] }",
            message: "`2026-02-30T00:00:00Z` is not an RFC 3339 instant", line: 2, column: 61, path: "transactions[0].purchaseDate",
            token: "\"2026-02-30"),
        BadReceipt(
            name: "missing purchase date", json: "{ \"app\": \"a\", \"transactions\": [\n  { \"productId\": \"p\", \"transactionId\": \"1\" }\n] }",
            message: "missing required key `purchaseDate` in transaction", line: 2, column: 3, path: "transactions[0]", token: "{ \"productId\""),
        BadReceipt(
            name: "wrong type", json: "{ \"app\": \"a\", \"transactions\": {} }",
            message: "expected an array, found an object", line: 1, column: 31, path: "transactions", token: "{}"),
        BadReceipt(
            name: "fractional quantity",
            json:
                "{ \"app\": \"a\", \"transactions\": [ { \"productId\": \"p\", \"transactionId\": \"1\", \"purchaseDate\": \"2026-01-01T00:00:00Z\", \"quantity\": 1.5 } ] }",
            message: "expected an integer, found `1.5`", line: 1, column: 127, path: "transactions[0].quantity", token: "1.5"),
        BadReceipt(
            name: "duplicate key", json: "{ \"app\": \"a\", \"app\": \"b\" }",
            message: "duplicate key `app`", line: 1, column: 15, path: "", token: "\"app\": \"b\""),
        BadReceipt(
            name: "conflicting consumptions",
            json: """
                { "app": "a", "consumptions": [
                  { "id": "c", "currency": "gems", "amount": 2, "date": "2026-01-03T00:00:00Z" },
                  { "id": "c", "currency": "gems", "amount": 5, "date": "2026-01-03T00:00:00Z" } ] }
                """,
            message: "consumption `c` appears twice with different content", line: 3, column: 3, path: "consumptions[1]",
            token: "{ \"id\": \"c\", \"currency\": \"gems\", \"amount\": 5"),
        BadReceipt(
            name: "trailing garbage", json: "{ \"app\": \"a\" } x",
            message: "unexpected `x` after the end of the JSON value", line: 1, column: 16, path: "", token: "x"),
        BadReceipt(name: "empty", json: "", message: "unexpected end of input, expected a value", line: 1, column: 1, path: ""),
    ]

    @Test("a bad receipt is rejected whole, with a located error", arguments: bad)
    func rejects(_ bad: BadReceipt) {
        do {
            _ = try ReceiptDecoder.decode(Data(bad.json.utf8), name: "r.json")
            Issue.record("accepted a bad receipt")
        } catch {
            bad.expected.check(message: error.message, location: error.location, path: error.path, in: bad.json)
        }
    }

    @Test("the did-you-mean reaches receipt keys too")
    func suggestion() throws {
        let json = "{ \"app\": \"a\", \"consumption\": [] }"
        let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(json.utf8)) }
        #expect(error.help == "did you mean `consumptions`?")
    }

    @Test("truncating a receipt anywhere gives an error, never a crash or a partial receipt")
    func truncation() throws {
        let data = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/diagrams-trial.json"))
        var end = data.count
        while end > 0, data[end - 1] == UInt8(ascii: "\n") || data[end - 1] == UInt8(ascii: " ") { end -= 1 }
        for length in 0..<end {
            let prefix = data.prefix(length)
            #expect(throws: ReceiptError.self) { try ReceiptDecoder.decode(prefix) }
        }
        #expect(try ReceiptDecoder.decode(data).transactions.count == 6)
    }

    @Test("random byte flips give receipts that read back the same through the writer, or errors located inside the input")
    func byteFlips() throws {
        let data = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/starquest-player.json"))
        var generator = SplitMix64(seed: 42)
        for _ in 0..<3000 {
            var mutated = data
            for _ in 0..<Int(generator.next() % 3 + 1) {
                let index = Int(generator.next() % UInt64(mutated.count))
                mutated[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            let outcome = Result { () throws(ReceiptError) -> Receipt in try ReceiptDecoder.decode(mutated) }
            if let problem = roundTripOrLocated(outcome, input: mutated) { Issue.record("\(problem)") }
            // A catalog made of the same bytes: rejected with every error located inside them.
            let compilation = Portfolio.compile([CatalogSource(name: "m.json", data: mutated)])
            #expect(compilation.portfolio == nil)
            for error in compilation.errors where !locatesInside(error.location, mutated) {
                Issue.record("catalog error outside the input: \(error)")
            }
        }
    }

    @Test("member names decode the same in any order, with escapes, spacing or a guess that misses")
    func memberOrder() throws {
        // The decoder guesses each member name from the order seen before; the guess must only
        // change the speed. Shuffle every object's members, space them out, and escape names.
        for name in ["diagrams-trial.json", "starquest-player.json", "diagrams-paid-app.json"] {
            let data = try Data(contentsOf: Fixtures.packageRoot.appendingPathComponent("products/receipts/\(name)"))
            let expected = try ReceiptDecoder.decode(data)
            let tree = try JSONSerialization.jsonObject(with: data)
            var generator = SplitMix64(seed: 7)
            for round in 0..<200 {
                let text = Self.write(tree, &generator, escapeNames: round % 3 == 0)
                let decoded = try ReceiptDecoder.decode(Data(text.utf8), name: "\(name) round \(round)")
                #expect(decoded == expected, "\(name) round \(round): \(text)")
            }
        }
    }

    /// JSON text for a JSONSerialization tree, members in a random order, with random spacing and
    /// (when asked) some name characters written as `\u` escapes.
    private static func write(_ value: Any, _ generator: inout SplitMix64, escapeNames: Bool) -> String {
        func space() -> String { ["", " ", "\n  ", "\t"][Int(generator.next() % 4)] }
        switch value {
        case let object as [String: Any]:
            var keys = Array(object.keys)
            for index in keys.indices.reversed() {
                keys.swapAt(index, Int(generator.next() % UInt64(index + 1)))
            }
            let members = keys.map { key -> String in
                var name = ""
                for character in key.unicodeScalars {
                    if escapeNames, generator.next() % 4 == 0 {
                        name += String(format: "\\u%04x", character.value)
                    } else {
                        name.unicodeScalars.append(character)
                    }
                }
                return space() + "\"\(name)\"" + space() + ":" + space() + write(object[key]!, &generator, escapeNames: escapeNames)
            }
            return "{" + members.joined(separator: ",") + space() + "}"
        case let array as [Any]:
            return "[" + array.map { space() + write($0, &generator, escapeNames: escapeNames) }.joined(separator: ",") + "]"
        default:
            let data = try! JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        }
    }

    @Test("a name repeated in a later object is still refused where it repeats, guessed or not")
    func repeatedNameAfterLearning() throws {
        let text =
            #"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z"},{"productId":"p","transactionId":"2","transactionId":"3","purchaseDate":"2026-01-01T00:00:00Z"}]}"#
        let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(text.utf8)) }
        #expect(error.code == .duplicateKey)
        #expect(error.location?.column == 1 + text.utf8.count - #""transactionId":"3","purchaseDate":"2026-01-01T00:00:00Z"}]}"#.utf8.count)
        // A name that starts like a known one, and one cut off by the end of the text.
        let longer = #"{"app":"a","transactions":[{"productIdx":"p"}]}"#
        #expect(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(longer.utf8)) }
        let cut = #"{"app":"a","transactions":[{"productId"#
        #expect(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(cut.utf8)) }
    }

    @Test("`quantity: null` means the default of 1, like every optional field")
    func nullQuantity() throws {
        let receipt = try ReceiptDecoder.decode(
            Data(#"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z","quantity":null}]}"#.utf8))
        #expect(receipt.transactions[0].quantity == 1)
    }

    @Test(
        "values past the receipt limits are refused where they are",
        arguments: [
            (
                #"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z","quantity":1001}]}"#,
                "quantity must be from 1 to 1000, found 1001", "transactions[0].quantity", 114
            ),
            (#"{"app":"\#(String(repeating: "a", count: 257))"}"#, "text of 257 bytes is longer than 256 bytes", "app", 8),
            (
                #"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"0000-12-31T00:00:00Z"}]}"#,
                "`0000-12-31T00:00:00Z` is not an RFC 3339 instant", "transactions[0].purchaseDate", 80
            ),
            (
                #"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"9999-12-31T23:59:59-01:00"}]}"#,
                "`9999-12-31T23:59:59-01:00` is not an RFC 3339 instant", "transactions[0].purchaseDate", 80
            ),
            (
                #"{"app":"a","consumptions":[{"id":"c","currency":"g","amount":1000000000001,"date":"2026-01-01T00:00:00Z"}]}"#,
                "amount must be a positive integer up to 10^12, found 1000000000001", "consumptions[0].amount", 62
            ),
        ])
    func limits(json: String, message: String, path: String, column: Int) throws {
        let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(json.utf8)) }
        #expect(error.message == message)
        #expect(error.path == path)
        #expect(error.location?.column == column)
    }

    @Test("a receipt of more than 100,000 transactions is refused at the first one too many")
    func transactionCount() throws {
        var text = #"{"app":"a","transactions":["#
        let one = #"{"productId":"p","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z"}"#
        text += Array(repeating: one, count: ReceiptLimits.maxTransactions + 1).joined(separator: ",")
        text += "]}"
        let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(text.utf8)) }
        #expect(error.message == "more than 100000 transactions in one receipt")
        #expect(error.path == "transactions[100000]")
        #expect(error.location?.column == 27 + ReceiptLimits.maxTransactions * (one.utf8.count + 1) + 1)
    }

    @Test("a list inside an entry past its limit is refused at its first element too many, naming the entry; a Receipt value says the same")
    func nestedListLimits() throws {
        let features = Array(repeating: #""f""#, count: ReceiptLimits.maxGrantFeatures + 1).joined(separator: ",")
        let before = #"{"app":"a","grants":[{"id":"g","features":["#
        let grant = before + features + #"],"start":"2026-01-01T00:00:00Z"}]}"#
        let grantError = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(grant.utf8)) }
        #expect(grantError.message == "more than 10000 features in one grant")
        #expect(grantError.path == "grants[0].features[10000]")
        // At the element too many: after the list's bracket and 10,000 elements of `"f",`.
        #expect(grantError.location?.column == before.utf8.count + ReceiptLimits.maxGrantFeatures * 4 + 1)

        let offers = Array(repeating: #""w""#, count: ReceiptLimits.maxWinBackOffers + 1).joined(separator: ",")
        let renewal = #"{"app":"a","renewals":[{"originalTransactionId":"o","winBackOffers":["# + offers + "]}]}"
        let renewalError = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(renewal.utf8)) }
        #expect(renewalError.message == "more than 1000 win-back offers in one renewal entry")
        #expect(renewalError.path == "renewals[0].winBackOffers[1000]")

        let tooMany = Receipt(
            app: "a",
            renewals: [Renewal(originalTransactionId: "o", winBackOffers: Array(repeating: "w", count: ReceiptLimits.maxWinBackOffers + 1))],
            grants: [Grant(id: "g", features: ["f"], start: Fixtures.instant("2026-01-01T00:00:00Z"))])
        let violation = try #require(tooMany.limitViolation)
        #expect(violation.path == "renewals[0].winBackOffers" && violation.message == renewalError.message)
        let wide = Receipt(
            app: "a",
            grants: [
                Grant(
                    id: "g", features: Array(repeating: "f", count: ReceiptLimits.maxGrantFeatures + 1),
                    start: Fixtures.instant("2026-01-01T00:00:00Z"))
            ])
        #expect(wide.limitViolation?.message == grantError.message)
    }

    @Test("offer type, offer id and revocation reason decode, and a wrong offer type is located")
    func offerFields() throws {
        let json =
            #"{"app":"a","transactions":[{"productId":"p","transactionId":"1","purchaseDate":"2026-01-01T00:00:00Z","offerType":"win-back","offerId":"w1","revocationReason":"app-issue"}]}"#
        let receipt = try ReceiptDecoder.decode(Data(json.utf8))
        #expect(receipt.transactions[0].offerType == .winBack && receipt.transactions[0].offerId == "w1")
        #expect(receipt.transactions[0].revocationReason == .appIssue)
        #expect(try ReceiptDecoder.decode(Data(receipt.json.utf8)) == receipt)
        let bad = json.replacingOccurrences(of: "win-back", with: "winback")
        let error = try #require(throws: ReceiptError.self) { try ReceiptDecoder.decode(Data(bad.utf8)) }
        #expect(error.message == "unknown offer type `winback`")
        #expect(error.help == "did you mean `win-back`?")
    }
}
