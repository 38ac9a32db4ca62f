import Foundation
import Testing

@testable import Entitle

/// Evaluates with the compiled evaluator, expects the reference evaluator's answer and the same
/// bytes with the receipts and each one's entries (transactions, renewal entries, consumptions,
/// grants) reversed, and returns the answer. `catalogs` are the portfolio's other catalogs the
/// reference evaluator reads for upgrade prerequisites met by family sharing.
func checkedEvaluation(
    _ catalog: CompiledCatalog, _ receipts: [Receipt], at text: String, accounts: [String] = [], storefront: String? = nil,
    catalogs: [String: CompiledCatalog] = [:], sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Entitlements {
    let at = Fixtures.instant(text)
    let result = catalog.evaluate(receipts, at: at, options: .testing(accounts: accounts, storefront: storefront))
    let reference = ReferenceEvaluator.evaluate(
        catalog, receipts: receipts, at: at, catalogs: catalogs, accounts: accounts, storefront: storefront)
    let actual = ReferenceResult(result)
    #expect(actual == reference, "at \(text): \(reference.difference(from: actual))", sourceLocation: sourceLocation)
    let reversed = receipts.reversed().map { receipt in
        var receipt = receipt
        receipt.transactions.reverse()
        for index in receipt.transactions.indices { receipt.transactions[index].items.reverse() }
        receipt.renewals.reverse()
        receipt.consumptions.reverse()
        receipt.grants.reverse()
        receipt.revocations.reverse()
        return receipt
    }
    #expect(
        catalog.evaluate(reversed, at: at, options: .testing(accounts: accounts, storefront: storefront)).json == result.json,
        "at \(text): order changes the answer", sourceLocation: sourceLocation)
    return result
}

/// Whether a located problem points inside `data`: a line the data has and a column no further
/// than the data is long (a problem at the end, as a cut-off input has, is one past it).
func locatesInside(_ location: Entitle.SourceLocation?, _ data: Data) -> Bool {
    guard let location else { return false }
    let lines = data.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    return (1...lines).contains(location.line) && (1...(data.count + 1)).contains(location.column)
}

/// What a mutated input must give: a receipt that reads back the same through the JSON writer, or
/// an error located inside the input. Returns the problem, `nil` when there is none.
func roundTripOrLocated(_ outcome: Result<Receipt, ReceiptError>, input: Data) -> String? {
    switch outcome {
    case .success(let receipt):
        do {
            let again = try ReceiptDecoder.decode(Data(receipt.json.utf8))
            return again == receipt ? nil : "accepted, but reads back differently through the writer"
        } catch {
            return "accepted, but its JSON is rejected: \(error)"
        }
    case .failure(let error):
        return locatesInside(error.location, input) ? nil : "rejected at \(error.location.map(\.description) ?? "no location"): \(error)"
    }
}

extension EvaluationOptions {
    /// Options from the names tests write: each environment as given (``ReceiptEnvironment/init(custom:)``,
    /// so a test may name one entitle does not know), the storefront checked (a bad one stops the test).
    static func testing(environments: (some Collection<String>)?, accounts: [String] = [], storefront: String? = nil) -> EvaluationOptions {
        EvaluationOptions(
            environments: environments.map { Set($0.map(ReceiptEnvironment.init(custom:))) }, accounts: accounts,
            storefront: storefront.map { try! Storefront($0) })
    }

    /// Options with every environment, from the names tests write.
    static func testing(accounts: [String] = [], storefront: String? = nil) -> EvaluationOptions {
        testing(environments: [String]?.none, accounts: accounts, storefront: storefront)
    }
}
