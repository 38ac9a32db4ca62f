import Foundation

/// Reads receipts from files or standard input.
enum ReceiptFiles {
    /// Reads and decodes the receipt at `path` (`-` for standard input).
    static func load(_ path: String, standardInput: () -> [UInt8]) throws(ReceiptError) -> Receipt {
        let name = path == "-" ? "<stdin>" : path
        let data: Data
        if path == "-" {
            data = Data(standardInput())
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ReceiptError(code: .unreadableFile, message: "cannot read receipt file",
                                   location: SourceLocation(file: name, line: 1, column: 1))
            }
            data = contents
        }
        return try ReceiptDecoder.decode(data, name: name)
    }
}
