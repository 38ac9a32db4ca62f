import EntitleWorkloads
import Foundation

/// `entitle-bench --write-corpus PATH --customers N`: writes a generated customer corpus of the
/// Diagrams example app (products/diagrams.json), for measuring `check --customers` and `diff
/// --customers` at any size without committing data.
///
/// Each customer `c-INDEX` has one normalized receipt of `transactions` transactions (renewal
/// chains with intro periods and grace, refunds, family sharing, passes, consumables), generated
/// from a fixed seed: the same command writes the same bytes. As a JSON Lines file, or with
/// `--layout directory` as a directory of one file per customer (`c-INDEX.json`).
enum CorpusWriter {
    enum Layout: String {
        case lines
        case directory
    }

    /// Writes the corpus, a megabyte of lines at a time; returns the bytes written.
    static func write(path: String, customers: Int, transactions: Int, layout: Layout, seed: UInt64) throws -> Int {
        var generator = WorkloadGenerator(seed: seed)
        var written = 0
        switch layout {
        case .lines:
            guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
            defer { try? file.close() }
            var block = ""
            for index in 0..<customers {
                let receipt = generator.receipt(for: .diagrams, transactions: transactions).replacingOccurrences(of: "\n", with: " ")
                block += #"{"customer": "c-\#(index)", "receipts": [\#(receipt)]}"# + "\n"
                if block.utf8.count >= 1 << 20 || index == customers - 1 {
                    try file.write(contentsOf: Data(block.utf8))
                    written += block.utf8.count
                    block = ""
                }
            }
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for index in 0..<customers {
                let receipt = Data(generator.receipt(for: .diagrams, transactions: transactions).utf8)
                try receipt.write(to: URL(fileURLWithPath: path).appendingPathComponent("c-\(index).json"))
                written += receipt.count
            }
        }
        return written
    }
}
