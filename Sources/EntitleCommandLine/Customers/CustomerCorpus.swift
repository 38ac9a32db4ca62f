import Entitle
import Foundation

/// A customer corpus for `diff --customers` and `check --customers`: a directory in which each
/// file is one customer's receipt (the id is the file name without its extension) or each
/// subdirectory holds one customer's receipts (the id is the subdirectory's name); or a JSON Lines
/// file of `{"customer": ID, "receipts": [...]}`. Receipts are in any format `check` reads.
///
/// A corpus is read as a stream of chunks (``read(_:)``), never whole: a JSON Lines file a block
/// of bytes at a time, a directory by its list of names (kept compactly, to visit them in order)
/// with each customer's files read when the customer is (``load(_:verify:)``, on any thread).
struct CustomerCorpus: Sendable {
    /// Where one customer's receipts are.
    enum Item: Sendable {
        /// An entry of a corpus directory: a receipt file, or a subdirectory of receipts.
        case entry(directory: String, name: String)
        /// A line of a JSON Lines file (its bytes share the block they were read in).
        case line(file: String, number: Int, bytes: Data)
        /// A line longer than ``maxLineBytes``, skipped without being kept.
        case tooLong(file: String, number: Int)
    }

    /// Customers read together, in corpus order.
    struct Chunk: Sendable {
        var items: [Item]
        /// How much of the corpus has been read once this chunk is done, from 0 to 1 (`nil` when
        /// it cannot be told: a pipe).
        var progress: Double?
    }

    /// One customer, read.
    struct Customer: Sendable {
        var id: String
        /// Whether the corpus wrote the id as a whole number, to write it back the same way.
        var idIsInteger = false
        /// Whether the id is the customer's own (`false` for a line too broken to name one: its
        /// id is then where it is, `file:line`, and it cannot repeat another).
        var identified = true
        /// The receipts, parsed, or the first receipt's error.
        var receipts: Result<[ParsedReceipt], ReceiptError>
        /// Where the customer is in the corpus: its file, or its line of a JSON Lines file.
        var location: SourceLocation? = nil

        /// The first byte of the id's key: customers are told apart by their id's bytes (`é`
        /// composed and decomposed are two customers, as they are two file names) and by how it
        /// was written (`1` and `"1"` are two).
        var keyKind: UInt8 { idIsInteger ? UInt8(ascii: "#") : UInt8(ascii: "\"") }
    }

    /// A corpus path and how it is read.
    enum Source: Sendable {
        case directory(String)
        case lines(String, size: Int?)
    }

    /// The corpus paths, each once, in the order given.
    var sources: [Source] = []
    /// Paths that cannot be read at all, found when the corpus was opened.
    var problems: [Diagnostic] = []
    /// With `--verify`: each receipt must be signed Apple data that verifies, or the customer is
    /// unreadable with the error.
    var verify: VerifyOption?

    /// The descriptor the corpus `-` is read from (standard input).
    var standardInput: Int32 = 0
    /// The most customers in one chunk.
    var chunkCustomers = 256
    /// How many bytes of a JSON Lines file are read at once.
    var blockBytes = 1 << 20
    /// The longest customer line read: the limit of one receipt file. A longer line is an
    /// unreadable customer, skipped without being held in memory.
    var maxLineBytes = ReceiptLimits.maxBytes

    /// Checks the corpus paths (directories or JSON Lines files): each is read once (`c.jsonl`
    /// and `./c.jsonl` are one corpus), and one that does not exist is a problem.
    static func open(_ paths: [String]) -> CustomerCorpus {
        var corpus = CustomerCorpus()
        var opened: Set<String> = []
        for path in paths
        where opened.insert(path == "-" ? "-" : URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path).inserted {
            // Standard input: JSON Lines, streamed as they come; how much is left cannot be told.
            if path == "-" {
                corpus.sources.append(.lines(path, size: nil))
                continue
            }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                corpus.problems.append(problem(path, "no such customer corpus"))
                continue
            }
            if isDirectory.boolValue {
                corpus.sources.append(.directory(path))
            } else {
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                let regular = (attributes?[.type] as? FileAttributeType) == .typeRegular
                corpus.sources.append(.lines(path, size: regular ? (attributes?[.size] as? Int) : nil))
            }
        }
        return corpus
    }

    /// The error of a customer id seen before in the corpus, located at the repeat: `check` and
    /// `diff` report it alike.
    static func repeated(id: String, location: SourceLocation?) -> ReceiptError {
        ReceiptError(
            code: .badValue, message: "customer `\(Diagnostic.excerpt(id))` appears more than once in the corpus; only its first entry counts",
            location: location)
    }

    /// A corpus path that cannot be read, located at its start.
    static func problem(_ path: String, _ message: String, line: Int = 1) -> Diagnostic {
        Diagnostic(severity: .error, code: .unreadableFile, message: message, location: SourceLocation(file: path, line: line, column: 1))
    }

    /// Reads the corpus in chunks, in order: directory entries in the byte order of their names,
    /// lines in file order; each chunk is handed to `emit` before the next is read.
    ///
    /// - Returns: problems found while reading (a directory that cannot be listed, a file that
    ///   cannot be read past some line).
    func read(_ emit: (Chunk) -> Void) -> [Diagnostic] {
        var problems: [Diagnostic] = []
        for (index, source) in sources.enumerated() {
            // Each corpus path is an equal share of the progress.
            let share = { (fraction: Double?) -> Double? in
                fraction.map { (Double(index) + min(max($0, 0), 1)) / Double(sources.count) }
            }
            switch source {
            case .directory(let path):
                if let problem = readDirectory(path, progress: share, emit) { problems.append(problem) }
            case .lines(let path, let size):
                if let problem = readLines(path, size: size, progress: share, emit) { problems.append(problem) }
            }
        }
        return problems
    }

    /// Reads a directory's entries: their names kept compactly, end to end, sorted by their bytes,
    /// then handed out in chunks.
    private func readDirectory(_ path: String, progress: (Double?) -> Double?, _ emit: (Chunk) -> Void) -> Diagnostic? {
        guard let directory = opendir(path) else {
            return Self.problem(path, "cannot read the directory: \(String(cString: strerror(errno)).lowercased())")
        }
        var names: [UInt8] = []
        var starts: [Int] = []
        while let entry = readdir(directory) {
            withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) { name in
                    let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
                    // Hidden entries, `.` and `..` among them, are not customers.
                    guard length > 0, name[0] != UInt8(ascii: ".") else { return }
                    starts.append(names.count)
                    names.append(contentsOf: UnsafeBufferPointer(start: name, count: length))
                }
            }
        }
        closedir(directory)
        starts.append(names.count)
        let count = starts.count - 1
        var order = Array(0..<count)
        names.withUnsafeBufferPointer { bytes in
            func name(_ index: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1]]) }
            order.sort { name($0).lexicographicallyPrecedes(name($1)) }
        }
        var chunkStart = 0
        while chunkStart < count {
            let chunkEnd = min(chunkStart + chunkCustomers, count)
            let items = order[chunkStart..<chunkEnd].map { index in
                Item.entry(directory: path, name: String(decoding: names[starts[index]..<starts[index + 1]], as: UTF8.self))
            }
            emit(Chunk(items: items, progress: progress(Double(chunkEnd) / Double(count))))
            chunkStart = chunkEnd
        }
        return nil
    }

    /// Reads a JSON Lines file (`-`: standard input) a block at a time; each chunk's lines share
    /// the block's bytes, and are handed out as soon as a block is read, so a pipe's customers are
    /// answered as they arrive.
    private func readLines(_ file: String, size: Int?, progress: (Double?) -> Double?, _ emit: (Chunk) -> Void) -> Diagnostic? {
        let standardInput = file == "-"
        let path = standardInput ? "<stdin>" : file
        let descriptor = standardInput ? self.standardInput : Foundation.open(file, O_RDONLY)
        guard descriptor >= 0 else { return Self.problem(path, "cannot read the file: \(String(cString: strerror(errno)).lowercased())") }
        defer { if !standardInput { close(descriptor) } }
        var buffer = Data()  // from the start of the first line not yet handed out
        var scanned = 0  // bytes of `buffer` already searched for a line's end
        var number = 1  // the line `buffer` starts with
        var skipping: Int?  // the number of a line too long to keep, while its rest is read
        var bufferOffset = 0  // where `buffer` starts in the file
        var handedOut = 0  // the file's bytes up to the end of the last line handed out
        var items: [Item] = []

        func flush() {
            guard !items.isEmpty else { return }
            emit(Chunk(items: items, progress: progress(size.map { $0 > 0 ? Double(handedOut) / Double($0) : 1 })))
            items = []
        }
        func add(_ line: Data, number: Int) {
            // A line of nothing but spaces is not a customer.
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") && $0 != UInt8(ascii: "\r") }) else { return }
            items.append(.line(file: path, number: number, bytes: line))
            if items.count == chunkCustomers { flush() }
        }

        while true {
            let start = buffer.count
            buffer.count = start + blockBytes
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                while true {
                    let count = Foundation.read(descriptor, raw.baseAddress! + start, blockBytes)
                    if count >= 0 || errno != EINTR { return count }
                }
            }
            guard count >= 0 else {
                let reason = String(cString: strerror(errno)).lowercased()
                buffer.count = start
                flush()
                return Self.problem(path, "cannot read the file past line \(number): \(reason)", line: number)
            }
            buffer.count = start + count
            if count == 0 {
                handedOut = bufferOffset + buffer.count
                // The last line need not end with a line feed.
                if let skipped = skipping {
                    items.append(.tooLong(file: path, number: skipped))
                } else if !buffer.isEmpty {
                    add(buffer, number: number)
                }
                flush()
                return nil
            }
            // The complete lines of what was read, handed out; the incomplete rest kept.
            var lineStart = 0
            for end in Self.lineEnds(in: buffer, from: scanned) {
                handedOut = bufferOffset + end + 1
                if let skipped = skipping {
                    items.append(.tooLong(file: path, number: skipped))
                    if items.count == chunkCustomers { flush() }
                    skipping = nil
                } else {
                    add(buffer[(buffer.startIndex + lineStart)..<(buffer.startIndex + end)], number: number)
                }
                number += 1
                lineStart = end + 1
            }
            flush()
            let rest = buffer.count - lineStart
            if skipping != nil || rest > maxLineBytes {
                // Too long to be a customer: remember its number, and drop its bytes as they come.
                if skipping == nil { skipping = number }
                bufferOffset += buffer.count
                buffer = Data()
                scanned = 0
            } else if lineStart > 0 {
                bufferOffset += lineStart
                buffer = Data(buffer[(buffer.startIndex + lineStart)...])
                scanned = buffer.count
            } else {
                scanned = buffer.count
            }
        }
    }

    /// The offsets of the line feeds in `bytes` from offset `start` (`memchr`: the reader passes
    /// over every byte of the corpus once).
    private static func lineEnds(in bytes: Data, from start: Int) -> [Int] {
        bytes.withUnsafeBytes { raw in
            var ends: [Int] = []
            guard let base = raw.baseAddress else { return ends }
            var from = start
            while from < raw.count, let found = memchr(base + from, Int32(UInt8(ascii: "\n")), raw.count - from) {
                let offset = base.distance(to: UnsafeRawPointer(found))
                ends.append(offset)
                from = offset + 1
            }
            return ends
        }
    }

    /// Reads one customer's receipts.
    func load(_ item: Item) -> Customer {
        Self.load(item, verify: verify, maxLineBytes: maxLineBytes)
    }

    /// Reads one customer's receipts (a line too long says what the limit was).
    static func load(_ item: Item, verify: VerifyOption?, maxLineBytes: Int = ReceiptLimits.maxBytes) -> Customer {
        switch item {
        case .entry(let directory, let name):
            let entry = (directory as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            // A dangling or looping link is a customer whose file cannot be read, counted as such
            // (not dropped: `--fail-on-loss` must see it).
            let exists = FileManager.default.fileExists(atPath: entry, isDirectory: &isDirectory)
            if exists && isDirectory.boolValue {
                let inner = ((try? FileManager.default.contentsOfDirectory(atPath: entry)) ?? []).filter { !$0.hasPrefix(".") }
                    .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                return files(id: name, paths: inner.map { (entry as NSString).appendingPathComponent($0) }, verify: verify)
            }
            return files(id: (name as NSString).deletingPathExtension, paths: [entry], verify: verify)
        case .tooLong(let file, let number):
            let location = SourceLocation(file: file, line: number, column: 1)
            return Customer(
                id: "\(file):\(number)", identified: false,
                receipts: .failure(
                    ReceiptError(
                        code: .limitExceeded, message: "the customer line is longer than \(maxLineBytes) bytes, the limit of a receipt file",
                        location: location)), location: location)
        case .line(let file, let number, let bytes):
            let line: CustomerLine
            do throws(ReceiptError) {
                // Normalized receipts are read as the line is; with `--verify` every receipt is
                // Apple's signed data, read by the importer.
                line = try CustomerLine(bytes, name: file, line: number, readingNormalized: verify == nil)
            } catch {
                return Customer(
                    id: "\(file):\(number)", identified: false, receipts: .failure(error),
                    location: SourceLocation(file: file, line: number, column: 1))
            }
            let location = SourceLocation(file: file, line: number, column: 1)
            guard line.count > 0 else {
                return Customer(
                    id: line.customer, idIsInteger: line.customerIsInteger,
                    receipts: .failure(
                        ReceiptError(
                            code: .badValue,
                            message: "customer `\(Diagnostic.excerpt(line.customer))` has an empty `receipts` list: nothing to evaluate",
                            location: location, path: "receipts")), location: location)
            }
            var receipts: [ParsedReceipt] = []
            receipts.reserveCapacity(line.count)
            for index in 0..<line.count {
                if let receipt = line.normalized[index] {
                    receipts.append(receipt)
                    continue
                }
                do throws(ReceiptError) {
                    receipts.append(try parse(line.receipt(at: index), name: file, verify: verify))
                } catch {
                    // Located in the corpus file: the receipt's line, and its column within the line.
                    var error = error
                    let column = line.columns[index]
                    if let inner = error.location, inner.line == 1 {
                        error.location = SourceLocation(file: file, line: number, column: column + inner.column - 1)
                    } else {
                        error.location = SourceLocation(file: file, line: number, column: column)
                    }
                    error.path = "receipts[\(index)]" + (error.path.isEmpty ? "" : "." + error.path)
                    return Customer(id: line.customer, idIsInteger: line.customerIsInteger, receipts: .failure(error), location: location)
                }
            }
            return Customer(id: line.customer, idIsInteger: line.customerIsInteger, receipts: .success(receipts), location: location)
        }
    }

    /// A customer of a corpus directory: its receipt files, read and parsed.
    private static func files(id: String, paths: [String], verify: VerifyOption?) -> Customer {
        guard let first = paths.first else {
            return Customer(id: id, receipts: .failure(ReceiptError(code: .unreadableFile, message: "no receipt files")))
        }
        let location = SourceLocation(file: first, line: 1, column: 1)
        do throws(ReceiptError) {
            var receipts: [ParsedReceipt] = []
            // Each file as `check --receipt` reads it: a receipt, an array of them (what `entitle
            // receipt` prints), or a store's data.
            for path in paths {
                receipts += try ReceiptFiles.load(path, verify: verify, standardInput: { [] }).map(\.receipt)
            }
            return Customer(id: id, receipts: .success(receipts), location: location)
        } catch {
            return Customer(id: id, receipts: .failure(error), location: location)
        }
    }

    /// A receipt's bytes, parsed: normalized receipts straight from their bytes, Apple's data
    /// through the importer.
    private static func parse(_ data: Data, name: String, verify: VerifyOption?) throws(ReceiptError) -> ParsedReceipt {
        // A receipt written as a JSON string on a corpus line (a compact JWS, a base64 app
        // receipt) is read as the file holding that text would be.
        if data.first == UInt8(ascii: "\""),
            case .string(let text)? = (try? JSONDocument.parse(data, limits: JSONDocument.Limits(maxBytes: ReceiptLimits.maxBytes, maxDepth: 1)))?
                .root.value,
            !text.hasPrefix("\"")
        {
            return try parse(Data(text.utf8), name: name, verify: verify)
        }
        // Most corpora hold normalized receipts: read as one first, which needs no other look at
        // the bytes. A normalized receipt refuses unknown members, so Apple's data never reads
        // as one; when it does not read, the format is told from the content as `check` tells it.
        if verify == nil, data.first == UInt8(ascii: "{"), let receipt = try? ParsedReceipt(json: data, name: name) { return receipt }
        return try ReceiptFiles.decode(data, name: name, verify: verify).receipt
    }
}
