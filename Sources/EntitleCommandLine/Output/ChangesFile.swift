import Entitle
import Foundation

/// `diff --customers --changes FILE`: every change of every customer, in corpus order, as JSON
/// Lines or (for a `.csv` file) a table, written chunk by chunk so memory stays flat.
final class ChangesFile {
    private let handle: FileHandle
    /// A CSV table (`customer,at,app,kind,id,from,to`) rather than JSON Lines.
    let csv: Bool

    /// Why a file cannot be written, in the system's words.
    struct Failure: Error {
        var reason: String
    }

    init(path: String) throws(Failure) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw Failure(reason: String(cString: strerror(errno)).lowercased())
        }
        self.handle = handle
        csv = path.lowercased().hasSuffix(".csv")
        if csv { write("customer,at,app,kind,id,from,to\n") }
    }

    /// Appends one customer's lines: a line per change at each instant, or its error.
    func append(_ customer: BatchImpact.Assessed, instants: [Instant], repeated: ReceiptError?, to text: inout String) {
        let id: JSONOutput = customer.idIsInteger ? Int64(customer.id).map(JSONOutput.integer) ?? .string(customer.id) : .string(customer.id)
        let result = repeated.map { Result.failure($0) } ?? customer.changes
        switch result {
        case .failure(let error):
            if csv {
                CSVTable.row([customer.id, nil, nil, "error", error.code.rawValue, error.message, nil], to: &text)
            } else {
                text += JSONOutput.object([("customer", id), ("errors", .array([error.diagnostic.jsonOutput]))]).renderedOnOneLine() + "\n"
            }
        case .success(let changes):
            for (at, atInstant) in zip(instants, changes) {
                for item in atInstant {
                    let (app, change) = (item.app, item.change)
                    if csv {
                        CSVTable.row(
                            [customer.id, at.rfc3339, app, change.kind.rawValue, change.id, change.from?.description, change.to?.description],
                            to: &text)
                    } else {
                        text +=
                            JSONOutput.object([
                                ("customer", id), ("at", .string(at.rfc3339)), ("app", .string(app)), ("kind", .string(change.kind.rawValue)),
                                ("id", .string(change.id)), ("from", change.from?.jsonOutput ?? .null), ("to", change.to?.jsonOutput ?? .null),
                            ]).renderedOnOneLine() + "\n"
                    }
                }
            }
        }
    }

    func write(_ text: String) {
        guard !text.isEmpty else { return }
        handle.write(Data(text.utf8))
    }

    func close() { try? handle.close() }
}
