// libFuzzer entry point for entitle. Built by Tests/Fuzz/fuzz.sh together with every file of
// Sources/Entitle in one `swiftc` invocation (module EntitleFuzz), so the library's internal API is
// visible here. One binary holds every target; `ENTITLE_FUZZ_TARGET` chooses one (see README.md).
//
// Every target turns the input into library calls, renders everything the library can render
// (rendering is where most of the arithmetic and string work happens), and checks invariants
// that must hold for every input. A violated invariant is a `fatalError` whose message starts
// with "invariant:", so a crash report says which one failed.

import Foundation

// MARK: - Target selection

enum FuzzTarget: String, CaseIterable {
    case catalog, receipt, detect, jws, verifyreceipt, pkcs7, structured
    /// Stripe's objects and Google Play's purchases (`StoreImport`).
    case stripe, play
    /// Signed Apple data through `AppleSignatureVerifier` (Verify.swift).
    case verify
    /// `structured` with elements repeated up to thousands of times: slower inputs, to find
    /// paths that cost more than linear time (libFuzzer's `-timeout`).
    case stalls
    /// A customer's story (`Story`, compiled in from the command-line target; Stories.swift).
    case story
}

/// Read once, the first time an input arrives.
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["ENTITLE_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        fatalError("ENTITLE_FUZZ_TARGET must be one of: \(names) (found `\(name)`)")
    }
    return target
}()

/// `ENTITLE_FUZZ_PRINT=1` prints what the structured target generated and every result, to turn
/// a crash artifact into a readable regression test.
let printing: Bool = ProcessInfo.processInfo.environment["ENTITLE_FUZZ_PRINT"] == "1"

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>)
    -> CInt
{
    _ = selectedTarget
    if selectedTarget == .receipt || selectedTarget == .story || selectedTarget.importsAppleData {
        _ = products  // compile the example catalogs before the first input, not during it
    }
    if selectedTarget == .verify { _ = verificationRoots }  // read the roots before the first input too
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    switch selectedTarget {
    case .catalog: fuzzCatalog(data)
    case .receipt: fuzzReceipt(data)
    case .detect: fuzzDetect(data)
    case .jws: fuzzImport { () throws(ReceiptError) in try AppleImport.unverifiedReceipt(fromAppStore: data) }
    case .verifyreceipt:
        fuzzImport { () throws(ReceiptError) in try AppleImport.unverifiedReceipt(fromVerifyReceipt: data, app: exampleApp) }
    case .pkcs7: fuzzImport { () throws(ReceiptError) in try AppleImport.unverifiedReceipt(fromPKCS7: data) }
    case .stripe: fuzzImport { () throws(ReceiptError) in try StoreImport.unverifiedReceipt(fromStripe: data, app: exampleApp) }
    case .play: fuzzImport { () throws(ReceiptError) in try StoreImport.unverifiedReceipt(fromPlay: data, app: exampleApp) }
    case .verify: fuzzVerify(data)
    case .story: fuzzStory(data)
    case .structured, .stalls:
        let buffer = UnsafeBufferPointer(start: bytes, count: bytes == nil ? 0 : count)
        fuzzStructured(buffer)
    }
    return 0
}

extension FuzzTarget {
    var importsAppleData: Bool { [.detect, .jws, .verifyreceipt, .pkcs7, .verify, .stripe, .play].contains(self) }
}

// MARK: - Shared helpers

let exampleApp = "com.example.diagrams"

nonisolated(unsafe) var sink = 0

/// Keeps rendered text alive so the optimizer cannot drop the work that produced it.
@inline(never)
func consume(_ text: String) {
    sink &+= text.utf8.count
    if printing { FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8)) }
}

func ms(_ rfc3339: String) -> Instant {
    guard let instant = Instant(rfc3339: rfc3339) else { fatalError("harness: bad instant \(rfc3339)") }
    return instant
}

/// The instant and its neighbours one millisecond either side (those that exist).
func withNeighbours(_ instant: Instant) -> [Instant] {
    let value = instant.millisecondsSince1970
    var result = [instant]
    if value > Int64.min { result.insert(Instant(millisecondsSince1970: value - 1), at: 0) }
    if value < Int64.max { result.append(Instant(millisecondsSince1970: value + 1)) }
    return result
}

/// Evaluates, renders both forms, and checks that the JSON form is JSON.
func evaluateAndRender(_ catalog: CompiledCatalog, _ receipts: [ParsedReceipt], at: Instant) {
    let result = catalog.evaluate(receipts, at: at)
    let json = result.json
    consume(json)
    consume(result.text)
    for warning in result.warnings { consume(warning.description) }
    checkJSON(json, what: "Entitlements.json at \(at.millisecondsSince1970) ms")
}

let unlimited = JSONDocument.Limits(maxBytes: Int.max, maxDepth: 64)

func checkJSON(_ text: String, what: String) {
    do {
        // The library's reader checks the syntax without building a tree.
        var text = text
        try text.withUTF8 { bytes in
            var reader = JSONReader(bytes: UnsafeRawBufferPointer(bytes), maxDepth: unlimited.maxDepth)
            try reader.skipValue()
            try reader.finish()
        }
    } catch {
        fatalError("invariant: \(what) is not JSON that JSONDocument.parse reads: \(error)\n\(text.prefix(2000))")
    }
}

/// A receipt's own instants (at most `limit` distinct ones, in receipt order).
func dates(of receipt: Receipt, limit: Int) -> [Instant] {
    var seen = Set<Int64>()
    var result: [Instant] = []
    func add(_ instant: Instant?) {
        guard let instant, result.count < limit, seen.insert(instant.millisecondsSince1970).inserted else { return }
        result.append(instant)
    }
    for transaction in receipt.transactions where result.count < limit {
        add(transaction.purchaseDate)
        add(transaction.originalPurchaseDate)
        add(transaction.expiresDate)
        add(transaction.cancellationDate)
    }
    for renewal in receipt.renewals where result.count < limit { add(renewal.gracePeriodExpiresDate) }
    for consumption in receipt.consumptions where result.count < limit { add(consumption.date) }
    return result
}

/// Invariant: a receipt rendered as normalized JSON decodes again, to the same receipt.
/// (`entitle normalize` must never print what `entitle check` refuses.)
@discardableResult
func checkRoundTrip(_ receipt: Receipt, what: String) -> ParsedReceipt {
    let json = receipt.json
    consume(json)
    checkJSON(json, what: "\(what).json")
    let again: ParsedReceipt
    do {
        again = try ParsedReceipt(json: Data(json.utf8), name: "<round-trip>")
    } catch {
        fatalError("invariant: \(what) rendered as JSON does not decode: \(error)\n\(json.prefix(2000))")
    }
    guard again.receipt == receipt else {
        fatalError(
            "invariant: \(what) rendered as JSON decodes to a different receipt\n\(json.prefix(2000))\n---\n\(again.receipt.json.prefix(2000))")
    }
    return again
}

// MARK: - The example portfolio (receipt and Apple-import targets)

struct Products {
    var portfolio: Portfolio
    /// The example receipts of products/receipts, so upgrade requirements see other apps.
    var receipts: [ParsedReceipt]
}

/// `products/` (or `ENTITLE_FUZZ_PRODUCTS`), compiled once.
let products: Products = {
    let path = ProcessInfo.processInfo.environment["ENTITLE_FUZZ_PRODUCTS"] ?? "products"
    let compilation = Portfolio.load(path: path)
    guard let portfolio = compilation.portfolio else {
        fatalError(
            "harness: the catalogs at `\(path)` do not compile (run from the repository root or set ENTITLE_FUZZ_PRODUCTS):\n"
                + compilation.diagnostics.map(\.description).joined(separator: "\n"))
    }
    var receipts: [ParsedReceipt] = []
    let directory = URL(fileURLWithPath: path).appendingPathComponent("receipts")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.sorted() ?? []
    for name in names where name.hasSuffix(".json") {
        if let data = try? Data(contentsOf: directory.appendingPathComponent(name)),
            let receipt = try? ParsedReceipt(json: data, name: name)
        {
            receipts.append(receipt)
        }
    }
    return Products(portfolio: portfolio, receipts: receipts)
}()

let fixedInstants: [Instant] = [
    ms("0001-01-01T00:00:00Z"), ms("1970-01-01T00:00:00Z"), ms("2026-01-15T09:00:00Z"), ms("9999-12-31T23:59:59.999Z"),
]

/// Evaluates a receipt against the example catalog of its app (else the first one) at the fixed
/// instants and around the receipt's own dates.
func evaluateAgainstProducts(_ parsed: ParsedReceipt, receipt: Receipt) {
    let portfolio = products.portfolio
    let catalog = portfolio.catalog(for: parsed.app) ?? portfolio.catalogs[0]
    let others = products.receipts.filter { $0.app != parsed.app }
    let receipts = [parsed] + others
    var instants = fixedInstants
    for date in dates(of: receipt, limit: 4) { instants += withNeighbours(date) }
    for instant in instants { evaluateAndRender(catalog, receipts, at: instant) }
    // The consumption reply about its first transactions, at its first date.
    checkReplies(catalog, receipts, at: instants.count > fixedInstants.count ? instants[fixedInstants.count] : fixedInstants[2])
    // The timeline of the receipt's own first date: its ids drawn as text, whatever they hold.
    checkPicture(catalog.explain(receipts, at: instants.count > fixedInstants.count ? instants[fixedInstants.count] : fixedInstants[2]).svg)
    if parsed.app != catalog.app {
        do {
            _ = try portfolio.evaluate(app: parsed.app, receipts: receipts, at: fixedInstants[2])
        } catch {
            consume(error.description)
        }
    }
}

// MARK: - catalog

/// Bytes as one catalog; when it compiles, fixed receipts built from its own products.
func fuzzCatalog(_ data: Data) {
    let compilation = Portfolio.compile([CatalogSource(name: "fuzz.json", data: data)])
    for diagnostic in compilation.diagnostics { consume(diagnostic.description) }
    guard let portfolio = compilation.portfolio else { return }
    let graph = CatalogGraph(portfolio.catalogs)
    consume(graph.mermaid)
    consume(graph.dot)
    for catalog in portfolio.catalogs {
        let receipts = fixedReceipts(for: catalog).map(ParsedReceipt.init)
        for instant in catalogInstants {
            evaluateAndRender(catalog, receipts, at: instant)
            evaluateAndRender(catalog, [], at: instant)
        }
        checkPicture(catalog.explain(receipts, at: catalogInstants[2]).svg)
    }
}

/// A drawn timeline holds no character XML forbids and nothing a browser would run: names from
/// the input are escaped.
func checkPicture(_ svg: String) {
    consume(svg)
    if svg.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n") || $0.value == 0xFFFE || $0.value == 0xFFFF }) {
        fatalError("invariant: a timeline holds a character XML forbids\n\(svg.prefix(2000))")
    }
    if svg.contains("<script") || svg.contains("<!--") || svg.contains("<![CDATA[") {
        fatalError("invariant: a timeline holds markup from its input\n\(svg.prefix(2000))")
    }
}

let catalogInstants: [Instant] = [
    ms("2025-12-31T23:59:59.999Z"), ms("2026-01-01T00:00:00Z"), ms("2026-01-15T09:00:00Z"),
    ms("2026-03-31T00:00:00Z"), ms("2027-01-01T00:00:00Z"), ms("9999-12-31T23:59:59.999Z"),
]

/// Receipts touching (at most 32 of) the catalog's products: one purchase each, a refunded copy, a
/// family-shared one, renewals with a grace period, consumptions of every currency, and a
/// receipt of another app for upgrade requirements.
func fixedReceipts(for catalog: CompiledCatalog) -> [Receipt] {
    let start = ms("2026-01-01T00:00:00Z")
    let productIds = Array(catalog.productIds.prefix(32))
    var transactions: [Transaction] = []
    var renewals: [Renewal] = []
    for (index, id) in productIds.enumerated() {
        let type = catalog.productType(id)
        let isAuto = type == .autoRenewableSubscription
        let expires = isAuto ? ms("2026-02-01T00:00:00Z") : nil
        transactions.append(
            Transaction(
                productId: id, transactionId: "t\(index)", originalTransactionId: "o\(index)", purchaseDate: start,
                originalPurchaseDate: start, expiresDate: expires, quantity: 2, isIntroOfferPeriod: isAuto && index % 2 == 0))
        transactions.append(
            Transaction(
                productId: id, transactionId: "r\(index)", originalTransactionId: "o\(index)", purchaseDate: ms("2026-01-10T00:00:00Z"),
                expiresDate: expires.map { _ in ms("2026-03-01T00:00:00Z") }, cancellationDate: ms("2026-01-20T00:00:00Z")))
        transactions.append(
            Transaction(
                productId: id, transactionId: "f\(index)", purchaseDate: ms("2026-01-05T00:00:00Z"),
                expiresDate: expires, ownership: .familyShared))
        if isAuto {
            renewals.append(
                Renewal(
                    productId: id, originalTransactionId: "o\(index)", willRenew: true, isInBillingRetry: true,
                    gracePeriodExpiresDate: ms("2026-02-17T00:00:00Z")))
        }
    }
    transactions.append(Transaction(productId: "com.example.unknown", transactionId: "u", purchaseDate: start))
    let consumptions = catalog.currencyIds.prefix(8).enumerated().map { index, currency in
        Consumption(id: "c\(index)", currency: currency, amount: 1, date: ms("2026-01-02T00:00:00Z"))
    }
    let main = Receipt(app: catalog.app, transactions: transactions, renewals: renewals, consumptions: consumptions)
    let other = Receipt(
        app: "com.example.diagrams6",
        transactions: [
            Transaction(productId: "com.example.diagrams6.pro", transactionId: "d6", purchaseDate: ms("2020-01-01T00:00:00Z"))
        ])
    return [main, other]
}

// MARK: - receipt

/// Bytes as a normalized receipt, evaluated against products/ when it decodes.
func fuzzReceipt(_ data: Data) {
    checkReadInPlace(data)
    let parsed: ParsedReceipt
    do {
        parsed = try ParsedReceipt(json: data)
    } catch {
        consume(error.description)
        return
    }
    let receipt = parsed.receipt
    evaluateAgainstProducts(parsed, receipt: receipt)
    checkRoundTrip(receipt, what: "ParsedReceipt.receipt")
}

/// Invariant: a receipt on a corpus line, read in place, reads as its bytes alone do.
func checkReadInPlace(_ data: Data) {
    var line = Data(#"{"customer": "c", "receipts": ["#.utf8)
    line.append(data)
    line.append(contentsOf: "]}".utf8)
    guard let read = try? CustomerLine(line, name: "corpus", line: 1, readingNormalized: true), read.count == 1 else { return }
    let alone = try? ParsedReceipt(json: read.receipt(at: 0))
    guard read.normalized[0]?.receipt == alone?.receipt, (read.normalized[0] == nil) == (alone == nil) else {
        fatalError("invariant: a receipt read in place on a corpus line differs from its bytes read alone")
    }
}

// MARK: - Apple data

/// Imports Apple data; when that succeeds, evaluates the result and checks it round-trips.
func fuzzImport(_ read: () throws(ReceiptError) -> ImportedReceipt) {
    let imported: ImportedReceipt
    do {
        imported = try read()
    } catch {
        consume(error.description)
        return
    }
    for warning in imported.warnings { consume(warning.description) }
    // Evaluate first, so an evaluation trap is reported as such even when the receipt would not
    // round-trip either.
    evaluateAgainstProducts(ParsedReceipt(imported.receipt), receipt: imported.receipt)
    checkRoundTrip(imported.receipt, what: "ImportedReceipt.receipt (\(imported.format))")
}

func fuzzDetect(_ data: Data) {
    switch AppleImport.detect(data) {
    case .normalized?: consume("normalized")
    case .imported(let format)?: consume("\(format)")
    case nil: consume("unrecognized")
    }
    fuzzImport { () throws(ReceiptError) in try AppleImport.unverifiedReceipt(from: data, app: exampleApp) }
    // The same bytes as Apple's retention request: read, or refused with a located error.
    do {
        let request = try RetentionRequest(json: data)
        consume(request.originalTransactionId + request.productId)
    } catch {
        consume(error.description)
    }
}

/// Invariants: a consumption reply about a transaction of the app's receipts is made or refused
/// with a message, its share consumed is within 0-100% and its JSON is JSON; a retention request
/// about each of the first chains, for each of the app's subscriptions, is answered or refused
/// with a message, and an answer with a reply names a rule of the product.
func checkReplies(_ catalog: CompiledCatalog, _ receipts: [ParsedReceipt], at: Instant) {
    guard let own = receipts.first(where: { $0.app == catalog.app }) else { return }
    let subscriptions = catalog.products.filter { $0.store == .appStore && $0.type == .autoRenewableSubscription }
    for transaction in own.receipt.transactions.prefix(2) {
        for product in subscriptions.prefix(3) {
            let request = RetentionRequest(
                originalTransactionId: transaction.originalTransactionId ?? transaction.transactionId, productId: product.id,
                userLocale: "de-AT", requestIdentifier: "fuzz")
            do {
                let answer = try products.portfolio.retentionReply(app: catalog.app, request: request, receipts: receipts, at: at)
                if let rule = answer.rule, !product.retention.contains(where: { $0.id == rule }) {
                    fatalError("invariant: a retention answer names `\(rule)`, not a rule of \(product.id)")
                }
                if (answer.reply == nil) != (answer.rule == nil) {
                    fatalError("invariant: a retention answer has a rule without a reply or a reply without one")
                }
                consume(answer.text)
                checkJSON(answer.json, what: "RetentionReply.json")
            } catch {
                consume(error.description)
            }
        }
        do {
            let reply = try catalog.consumptionReply(transactionId: transaction.transactionId, receipts: receipts, at: at, consented: true)
            if let body = reply.body, !(0...100_000).contains(body.consumptionPercentage) {
                fatalError("invariant: a consumption reply's share consumed is \(body.consumptionPercentage), outside 0-100000")
            }
            consume(reply.text)
            checkJSON(reply.json, what: "ConsumptionReply.json")
        } catch {
            consume(error.description)
        }
    }
}
