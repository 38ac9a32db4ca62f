// entitle-example-service CATALOGS FOLDER [INSTANT]
//
// A service's last mile, whole: every file of FOLDER, in name order, is what the App Store sent
// (a notification's body) or what the service fetched (a signed transaction). Each is routed to its
// customer by the keys it carries, kept in that customer's history (a retry of a notification is
// read once), and the customer evaluated when it arrived; what changed, and when to look again, is
// printed. A real service verifies the data first (`AppleSignatureVerifier`, the SystemCrypto trait)
// and keeps each history as one row (`history.json`); this one keeps them in memory.
import Entitle
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4, let now = arguments.count == 4 ? Instant(rfc3339: arguments[3]) : Instant(Date()) else {
    FileHandle.standardError.write(Data("usage: entitle-example-service CATALOGS FOLDER [INSTANT]\n".utf8))
    exit(2)
}
let catalogs = PortfolioStore()
let compilation = catalogs.reload(path: arguments[1])
guard let portfolio = catalogs.portfolio else {
    for diagnostic in compilation.diagnostics { print(diagnostic) }
    exit(1)
}

var histories: [String: CustomerHistory] = [:]  // by customer
var customerOf: [String: String] = [:]  // an original transaction id, app account token or account -> its customer
var answers: [String: Entitlements] = [:]  // each customer's last answer

let folder = URL(fileURLWithPath: arguments[2])
for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
    let imported: ImportedReceipt
    do {
        imported = try AppleImport.unverifiedReceipt(from: Data(contentsOf: folder.appendingPathComponent(name)), name: name)
    } catch {
        print("\(name): not read: \(error)")
        continue
    }
    // Route: a customer who holds any of the data's keys, else a new one.
    var arriving = CustomerHistory()
    guard (try? arriving.add(imported)) != nil else {
        print("\(name): not kept: its entries contradict each other")
        continue
    }
    let keys = arriving.keys.originalTransactionIds + arriving.keys.appAccountTokens + arriving.keys.accounts
    let customer = keys.lazy.compactMap { customerOf[$0] }.first ?? "customer-\(histories.count + 1)"
    var history = histories[customer] ?? CustomerHistory()
    let added: Bool
    do {
        added = try history.add(imported)
    } catch {  // an id the history holds with other content: kept as it was, the data refused
        print("\(name): \(customer): not kept: \(error)")
        continue
    }
    guard added else {
        print("\(name): \(customer): nothing new (a retry, or data already kept)")
        continue
    }
    histories[customer] = history
    for key in keys { customerOf[key] = customer }

    // Evaluate as of the notification's signing (a transaction alone: now), and say what changed.
    let at = imported.notifications.first?.signedDate ?? now
    guard let result = try? history.evaluate(in: portfolio, app: imported.receipt.app, at: at) else {
        print("\(name): \(customer): kept; no catalog for \(imported.receipt.app)")
        continue
    }
    let changes =
        answers[customer].map { result.changes(since: $0).map(\.description) }
        ?? result.features.filter(\.enabled).map { "feature \($0.id): on" }
        + result.balances.filter { $0.balance != 0 }.map { "balance \($0.currency): \($0.balance)" }
    answers[customer] = result
    let about = imported.notifications.map { " (\([$0.type, $0.subtype, $0.consumptionRequestReason].compactMap { $0 }.joined(separator: " ")))" }
        .joined()
    print("\(name)\(about): \(customer) at \(at.rfc3339): \(changes.isEmpty ? "no change" : changes.joined(separator: "; "))")
    if let next = result.reevaluateAt { print("  look again at \(next.rfc3339)") }
}
