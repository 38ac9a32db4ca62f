import Foundation

@testable import Entitle

/// Paths and builders the tests share.
enum Fixtures {
    /// The package root, found from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var productsDirectory: String { packageRoot.appendingPathComponent("products").path }
    static var corpusDirectory: URL { packageRoot.appendingPathComponent("Tests/EntitleTests/Corpus") }
    /// The shared App Store fixtures: `$ENTITLE_FIXTURES`, else `../shared/fixtures` beside the project.
    static var sharedFixtures: URL {
        if let path = ProcessInfo.processInfo.environment["ENTITLE_FIXTURES"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }

    /// Whether the shared fixtures are there; the suites that read them run only then (CI
    /// requires them, see .ci/run).
    static var sharedFixturesAvailable: Bool {
        FileManager.default.fileExists(atPath: sharedFixtures.appendingPathComponent("INDEX.md").path)
    }

    /// The example portfolio in products/, compiled.
    static let examples: Portfolio = {
        let compilation = Portfolio.load(path: productsDirectory)
        guard let portfolio = compilation.portfolio else {
            fatalError("products/ does not compile:\n" + compilation.diagnostics.map(\.description).joined(separator: "\n"))
        }
        return portfolio
    }()

    static var diagrams: CompiledCatalog { examples.catalog(for: "com.example.diagrams")! }

    /// Compiles one catalog given as JSON text.
    static func compile(_ json: String, name: String = "catalog.json") -> Compilation {
        Portfolio.compile([CatalogSource(name: name, data: Data(json.utf8))])
    }

    /// Compiles a catalog that must be valid.
    static func catalog(_ json: String) -> CompiledCatalog {
        let compilation = compile(json)
        guard let portfolio = compilation.portfolio else {
            fatalError("catalog does not compile:\n" + compilation.diagnostics.map(\.description).joined(separator: "\n"))
        }
        return portfolio.catalogs[0]
    }

    /// A compact JWS of `payload` with a placeholder signature (read unverified).
    static func unsignedJWS(_ payload: String) -> String {
        func base64url(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return base64url(#"{"alg":"ES256"}"#) + "." + base64url(payload) + ".c2lnbmF0dXJl"
    }

    /// The error decoding a normalized receipt gives, or `nil` when it decodes.
    static func receiptError(_ json: String) -> ReceiptError? {
        do {
            _ = try ReceiptDecoder.decode(Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    /// Decodes a receipt that must be valid.
    static func receipt(_ json: String) -> Receipt {
        do {
            return try ReceiptDecoder.decode(Data(json.utf8))
        } catch {
            fatalError("receipt does not decode: \(error)")
        }
    }

    static func instant(_ text: String) -> Instant {
        guard let instant = Instant(rfc3339: text) else { fatalError("bad instant \(text)") }
        return instant
    }

    /// The folder this test process writes its files in, `$TMPDIR/entitle-tests/<pid>`. It is
    /// made on first use, and the folders of test processes that have ended are removed then: a
    /// run leaves only its own files behind, for a look after a failure.
    static let scratchRoot: URL = {
        let manager = FileManager.default
        let parent = manager.temporaryDirectory.appendingPathComponent("entitle-tests")
        try? manager.createDirectory(at: parent, withIntermediateDirectories: true)
        for name in (try? manager.contentsOfDirectory(atPath: parent.path)) ?? [] {
            guard let pid = Int32(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? manager.removeItem(at: parent.appendingPathComponent(name))
        }
        let root = parent.appendingPathComponent(String(getpid()))
        try? manager.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }()

    /// A new path in ``scratchRoot``: `name`, a UUID, then `ending` (nothing is made there).
    static func scratch(_ name: String, ending: String = "") -> URL {
        scratchRoot.appendingPathComponent("\(name)-\(UUID().uuidString)\(ending)")
    }

    /// Runs `body` with a new empty directory in ``scratchRoot`` (its name starts with `name`),
    /// and removes the directory after.
    static func withTemporaryDirectory<Result>(_ name: String, _ body: (URL) throws -> Result) throws -> Result {
        let directory = scratch(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    /// A transaction for the diagrams app with terse arguments.
    static func transaction(
        _ product: String, _ id: String, _ purchase: String, expires: String? = nil, cancelled: String? = nil,
        original: String? = nil, originalPurchase: String? = nil, quantity: Int = 1, trial: Bool = false,
        intro: Bool = false, upgraded: Bool = false, familyShared: Bool = false
    ) -> Transaction {
        Transaction(
            productId: product, transactionId: id, originalTransactionId: original,
            purchaseDate: instant(purchase), originalPurchaseDate: originalPurchase.map(instant),
            expiresDate: expires.map(instant), cancellationDate: cancelled.map(instant), quantity: quantity,
            isTrialPeriod: trial, isIntroOfferPeriod: intro, isUpgraded: upgraded,
            ownership: familyShared ? .familyShared : .purchased)
    }
}

/// Product ids of the Diagrams example, shortened.
enum Diagrams {
    static let app = "com.example.diagrams"
    static let pro = "com.example.diagrams.pro"
    static let trial = "com.example.diagrams.trial"
    static let upgrade = "com.example.diagrams.pro.upgrade"
    static let sync = "com.example.diagrams.sync.monthly"
    static let dayPass = "com.example.diagrams.daypass"
    static let stencils = "com.example.diagrams.stencils.10"
    static let oldApp = "com.example.diagrams6"
    static let oldPro = "com.example.diagrams6.pro"

    static func evaluate(
        _ transactions: [Transaction], renewals: [Renewal] = [], consumptions: [Consumption] = [],
        others: [Receipt] = [], at: String
    ) -> Entitlements {
        let receipt = Receipt(app: app, transactions: transactions, renewals: renewals, consumptions: consumptions)
        return Fixtures.diagrams.evaluate([receipt] + others, at: Fixtures.instant(at))
    }
}
