import Entitle
import Foundation

/// Reads receipts from files or standard input, in any format entitle knows.
enum ReceiptFiles {
    /// A receipt read from a file, decoded once for evaluation, and the store format it was read
    /// from without verifying it, if any.
    struct Loaded {
        var receipt: ParsedReceipt
        var unverified: ReceiptFormat?
        var warnings: [ImportWarning]
        /// Whether it is Stripe's data whose webhook signature verified (`--stripe-signature`).
        var stripeVerified = false
    }

    /// The notes to print for data read without verification, one per kind, Apple's first.
    static func notices(_ formats: Set<ReceiptFormat>) -> String {
        var lines: [String] = []
        for format in ReceiptFormat.allCases where formats.contains(format) {
            let line = StoreImport.notice(for: format)
            if !lines.contains(line) { lines.append(line) }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Reads the bytes at `path` (`-` for standard input).
    ///
    /// - Throws: ``ReceiptError`` saying whether the file is missing, a directory or unreadable.
    static func read(_ path: String, what: String = "receipt file", standardInput: () -> [UInt8]) throws(ReceiptError) -> Data {
        if path == "-" {
            let bytes = standardInput()
            guard bytes.count <= CommandEnvironment.maxStandardInputBytes else {
                throw ReceiptError(
                    code: .limitExceeded,
                    message: "standard input holds more than \(CommandEnvironment.maxStandardInputBytes) bytes, the limit of a \(what)",
                    location: SourceLocation(file: "<stdin>", line: 1, column: 1))
            }
            return Data(bytes)
        }
        func failure(_ message: String, help: String? = nil) -> ReceiptError {
            ReceiptError(code: .unreadableFile, message: message, location: SourceLocation(file: path, line: 1, column: 1), help: help)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil {
                throw failure("is a link to nothing that can be read (a missing file, or a loop of links)")
            }
            throw failure("no such \(what)")
        }
        if isDirectory.boolValue {
            throw failure("is a directory, not a \(what)", help: what == "receipt file" ? "name each receipt file with its own `--receipt`" : nil)
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        // A pipe or a device (`/dev/zero`) is not a file to read whole; `-` reads standard input.
        if let type = attributes?[.type] as? FileAttributeType, type != .typeRegular {
            let kind =
                type == .typeCharacterSpecial || type == .typeBlockSpecial ? "a device" : type == .typeSocket ? "a socket" : "a pipe or special file"
            throw failure("is \(kind), not a \(what)", help: "to read a stream, give `-` and pipe it to standard input")
        }
        // A file past the limit is refused before it is read into memory.
        if let size = attributes?[.size] as? Int, size > ReceiptLimits.maxBytes {
            throw ReceiptError(
                code: .limitExceeded, message: "the \(what) is \(size) bytes, over the limit of \(ReceiptLimits.maxBytes) bytes",
                location: SourceLocation(file: path, line: 1, column: 1))
        }
        let contents: Data
        do {
            contents = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw failure("cannot read the \(what): \(Self.reason(error))")
        }
        guard !contents.isEmpty else { throw failure("the \(what) is empty") }
        return contents
    }

    /// Why a file could not be read, in the system's words (`permission denied`, `input/output error`).
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code))).lowercased()
        }
        if error.domain == NSCocoaErrorDomain, error.code == CocoaError.fileReadNoPermission.rawValue { return "permission denied" }
        return "the system could not read it (\(error.domain) \(error.code))"
    }

    /// Reads and decodes the receipts at `path` (`-` for standard input): a normalized receipt, a
    /// JSON array of them (what `entitle receipt` prints), or a store's data recognized from its
    /// content.
    ///
    /// - Parameters:
    ///   - app: the app of store data that names none. Data naming another app stays that app's
    ///     receipt (a customer's receipts may be several apps').
    ///   - defaultApp: without `app`, the app of a store's data that names none (Stripe's objects
    ///     never do), given the product ids the data names (none before it is read): the
    ///     portfolio's one app, its one app selling in that store, or its one app selling those
    ///     products there.
    static func load(
        _ path: String, app: String? = nil, defaultApp: @escaping @Sendable (Store, [String]) -> String? = { _, _ in nil }, token: String? = nil,
        verify: VerifyOption? = nil, stripe: StripeSignatureOption? = nil, standardInput: () -> [UInt8]
    ) throws(ReceiptError) -> [Loaded] {
        let name = path == "-" ? "<stdin>" : path
        let data = try read(path, standardInput: standardInput)
        // An array a store's importer does not recognize (Stripe's lists are arrays too) is
        // normalized receipts, which under `--verify` are refused as one normalized receipt is
        // (nothing signed them).
        if verify == nil, data.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "["),
            AppleImport.detect(data).map({ if case .imported = $0 { false } else { true } }) ?? true
        {
            return try ReceiptDecoder.parseList(data, name: name).map { Loaded(receipt: $0, unverified: nil, warnings: []) }
        }
        return [try decode(data, name: name, app: app, defaultApp: defaultApp, token: token, verify: verify, stripe: stripe)]
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    /// Decodes receipt bytes: a normalized receipt, or a store's data recognized from its content.
    /// With `verify`, Apple's data is read only when it is signed and verifies (`unverified` is
    /// then `nil`); Stripe's and Play's, which carry no signature entitle checks, are read as given.
    static func decode(
        _ data: Data, name: String, format: ReceiptFormat? = nil, app given: String? = nil,
        defaultApp: @escaping @Sendable (Store, [String]) -> String? = { _, _ in nil },
        token: String? = nil, verify: VerifyOption? = nil, stripe: StripeSignatureOption? = nil
    ) throws(ReceiptError) -> Loaded {
        var format = format
        // The data is read once: a normalized receipt by the decoder alone; anything else into the
        // tree that recognizes it, which its importer (or the verifier) then reads.
        var root: JSONNode?
        if format == nil {
            if verify == nil, let receipt = ReceiptDecoder.normalized(data) {
                return Loaded(receipt: receipt, unverified: nil, warnings: [])
            }
            switch AppleImport.detect(data, root: &root) {
            case .normalized?:
                // Under --verify, the verifier refuses it: nothing signed it.
                if let verify {
                    let imported = try verify.receipt(data, name: name, format: nil, app: AppOption(app: given, strict: false))
                    return Loaded(receipt: ParsedReceipt(imported.receipt), unverified: nil, warnings: imported.warnings)
                }
                return Loaded(receipt: try ParsedReceipt(json: data, name: name), unverified: nil, warnings: [])
            case nil:
                throw AppleImport.unrecognized(name, choose: "name one with `--from`")
            case .imported(let detected)?:
                format = detected
            }
        }
        let app = given ?? format.flatMap { defaultApp($0.store, []) }
        // Data that names no app, of a portfolio with several selling in its store: the one
        // selling the products it names.
        var option = AppOption(app: app, strict: false)
        if app == nil, let store = format?.store { option.byProducts = { defaultApp(store, $0) } }
        if let verify, format?.store == .appStore {
            let imported = try verify.receipt(data, name: name, format: format, root: root, app: option)
            return Loaded(receipt: ParsedReceipt(imported.receipt), unverified: nil, warnings: imported.warnings)
        }
        // A Stripe webhook delivery: its body must verify before anything is read from it.
        if let stripe, format == .stripe {
            try stripe.check(data, name: name)
            let imported = try AppleImport.unverifiedReceipt(
                from: data, name: name, format: format, root: root, app: option)
            return Loaded(receipt: ParsedReceipt(imported.receipt), unverified: nil, warnings: imported.warnings, stripeVerified: true)
        }
        let imported =
            format == .play
            ? try StoreImport.play(data, root: root, name: name, app: option, token: token)
            : try AppleImport.unverifiedReceipt(from: data, name: name, format: format, root: root, app: option)
        return Loaded(receipt: ParsedReceipt(imported.receipt), unverified: imported.format, warnings: imported.warnings)
    }
}
