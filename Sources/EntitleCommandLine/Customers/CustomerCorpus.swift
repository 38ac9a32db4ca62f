import Entitle
import Foundation

/// A customer corpus for `diff --customers` and `check --customers`: a directory in which each
/// file is one customer's receipt (the id is the file name without its extension) or each
/// subdirectory holds one customer's receipts (the id is the subdirectory's name); or a JSON Lines
/// file of `{"customer": ID, "receipts": [...]}`. Receipts are in any format `check` reads.
struct CustomerCorpus {
    /// Where one customer's receipts are.
    enum Item: Sendable {
        case files(id: String, paths: [String])
        case line(file: String, number: Int, bytes: Data)
    }

    /// One customer, read.
    struct Customer: Sendable {
        var id: String
        /// Whether the corpus wrote the id as a whole number, to write it back the same way.
        var idIsInteger = false
        /// The receipts, parsed, or the first receipt's error.
        var receipts: Result<[ParsedReceipt], ReceiptError>
        /// Where the customer is in the corpus: its file, or its line of a JSON Lines file.
        var location: SourceLocation? = nil

        /// The id as a key that tells customers apart exactly: by its bytes (`é` composed and
        /// decomposed are two customers, as they are two file names) and by how it was written
        /// (`1` and `"1"` are two).
        var key: [UInt8] { [idIsInteger ? UInt8(ascii: "#") : UInt8(ascii: "\"")] + Array(id.utf8) }
    }

    var items: [Item] = []
    /// Paths that cannot be read at all.
    var problems: [Diagnostic] = []
    /// With `--verify`: each receipt must be signed Apple data that verifies, or the customer is
    /// unreadable with the error.
    var verify: VerifyOption?

    /// Lists the customers at `paths` (directories or JSON Lines files), in order: directory
    /// entries sorted by name, lines in file order. Reads JSON Lines files whole.
    static func open(_ paths: [String]) -> CustomerCorpus {
        var corpus = CustomerCorpus()
        let files = FileManager.default
        // A corpus named twice (`c.jsonl` and `./c.jsonl`) is read once.
        var opened: Set<String> = []
        for path in paths where opened.insert(URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path).inserted {
            func problem(_ message: String) {
                corpus.problems.append(Diagnostic(severity: .error, code: .unreadableFile, message: message,
                                                  location: SourceLocation(file: path, line: 1, column: 1)))
            }
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: path, isDirectory: &isDirectory) else { problem("no such customer corpus"); continue }
            if isDirectory.boolValue {
                guard let names = try? files.contentsOfDirectory(atPath: path) else { problem("cannot read the directory"); continue }
                for name in names.sorted() where !name.hasPrefix(".") {
                    let entry = (path as NSString).appendingPathComponent(name)
                    var entryIsDirectory: ObjCBool = false
                    // A dangling or looping link is a customer whose file cannot be read, counted
                    // as such (not dropped: `--fail-on-loss` must see it).
                    let exists = files.fileExists(atPath: entry, isDirectory: &entryIsDirectory)
                    if exists && entryIsDirectory.boolValue {
                        let inner = ((try? files.contentsOfDirectory(atPath: entry)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
                        corpus.items.append(.files(id: name, paths: inner.map { (entry as NSString).appendingPathComponent($0) }))
                    } else {
                        corpus.items.append(.files(id: (name as NSString).deletingPathExtension, paths: [entry]))
                    }
                }
            } else {
                guard let data = files.contents(atPath: path) else { problem("cannot read the file (permission denied?)"); continue }
                var number = 0
                var start = data.startIndex
                while start < data.endIndex {
                    let end = data[start...].firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
                    number += 1
                    let line = data[start..<end]
                    if line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }) {
                        corpus.items.append(.line(file: path, number: number, bytes: Data(line)))
                    }
                    start = end < data.endIndex ? data.index(after: end) : end
                }
            }
        }
        return corpus
    }

    /// Reads one customer's receipts.
    static func load(_ item: Item, verify: VerifyOption? = nil) -> Customer {
        switch item {
        case .files(let id, let paths):
            guard !paths.isEmpty else {
                return Customer(id: id, receipts: .failure(ReceiptError(code: .unreadableFile, message: "no receipt files")))
            }
            let location = SourceLocation(file: paths[0], line: 1, column: 1)
            do throws(ReceiptError) {
                var receipts: [ParsedReceipt] = []
                for path in paths {
                    receipts.append(try parse(try ReceiptFiles.read(path, standardInput: { [] }), name: path, verify: verify))
                }
                return Customer(id: id, receipts: .success(receipts), location: location)
            } catch {
                return Customer(id: id, receipts: .failure(error), location: location)
            }
        case .line(let file, let number, let bytes):
            let line: CustomerLine
            do throws(ReceiptError) {
                line = try CustomerLine(bytes, name: file, line: number)
            } catch {
                return Customer(id: "\(file):\(number)", receipts: .failure(error))
            }
            guard !line.receipts.isEmpty else {
                let location = SourceLocation(file: file, line: number, column: 1)
                return Customer(id: line.customer, idIsInteger: line.customerIsInteger, receipts: .failure(ReceiptError(
                    code: .badValue, message: "customer `\(Diagnostic.excerpt(line.customer))` has an empty `receipts` list: nothing to evaluate",
                    location: location, path: "receipts")), location: location)
            }
            var receipts: [ParsedReceipt] = []
            for (index, receipt) in line.receipts.enumerated() {
                do throws(ReceiptError) {
                    receipts.append(try parse(receipt, name: file, verify: verify))
                } catch {
                    // Located in the corpus file: the receipt's line, and its column within the line.
                    var error = error
                    if let location = error.location, location.line == 1 {
                        error.location = SourceLocation(file: file, line: number, column: line.columns[index] + location.column - 1)
                    } else {
                        error.location = SourceLocation(file: file, line: number, column: line.columns[index])
                    }
                    error.path = "receipts[\(index)]" + (error.path.isEmpty ? "" : "." + error.path)
                    return Customer(id: line.customer, idIsInteger: line.customerIsInteger, receipts: .failure(error))
                }
            }
            return Customer(id: line.customer, idIsInteger: line.customerIsInteger, receipts: .success(receipts),
                            location: SourceLocation(file: file, line: number, column: 1))
        }
    }

    /// A receipt's bytes, parsed: normalized receipts straight from their bytes, Apple's data
    /// through the importer.
    private static func parse(_ data: Data, name: String, verify: VerifyOption?) throws(ReceiptError) -> ParsedReceipt {
        // A receipt written as a JSON string on a corpus line (a compact JWS, a base64 app
        // receipt) is read as the file holding that text would be.
        if data.first == UInt8(ascii: "\""),
           case .string(let text)? = (try? JSONDocument.parse(data, limits: JSONDocument.Limits(maxBytes: ReceiptLimits.maxBytes, maxDepth: 1)))?.root.value,
           !text.hasPrefix("\"") {
            return try parse(Data(text.utf8), name: name, verify: verify)
        }
        return try ReceiptFiles.decode(data, name: name, verify: verify).receipt
    }

    /// Reads every customer and transforms it, `chunk` customers at a time on all cores, handing
    /// each chunk's results to `body` in corpus order, so memory holds one chunk at a time.
    func forEachChunk<Result: Sendable>(
        size chunk: Int = 2_048, _ transform: @escaping @Sendable (Customer) -> Result, _ body: ([Result]) -> Void
    ) {
        var start = 0
        while start < items.count {
            let end = min(start + chunk, items.count)
            let slice = Array(items[start..<end])
            let results = Slots<Result>(count: slice.count)
            DispatchQueue.concurrentPerform(iterations: slice.count) { index in
                results.set(index, transform(Self.load(slice[index], verify: verify)))
            }
            body(results.values)
            start = end
        }
    }
}

/// Results written by concurrent iterations, each to its own slot of a buffer allocated once
/// (no array is mutated concurrently).
private final class Slots<Value>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }

    deinit {
        buffer.deinitialize()
        buffer.deallocate()
    }

    /// Each index is written by exactly one iteration, and read only after all have finished.
    func set(_ index: Int, _ value: Value) { buffer[index] = value }

    var values: [Value] { buffer.map { $0! } }
}
