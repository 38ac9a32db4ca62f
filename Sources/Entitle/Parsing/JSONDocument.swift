import Foundation

/// A parsed JSON text kept as a tree whose every value and member name remembers its byte offset,
/// so the checker can point at `line:column` for any problem it finds.
///
/// Duplicate member names are not a syntax error in RFC 8259, but in a catalog they are always a
/// mistake (the second silently replaces the first in most tools), so the document records them
/// for the checker instead of failing.
package struct JSONDocument {
    /// The limits a text must keep to.
    package struct Limits: Sendable {
        var maxBytes: Int
        var maxDepth: Int

        /// Limits of `maxBytes` bytes and `maxDepth` levels of nesting.
        package init(maxBytes: Int, maxDepth: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// Catalogs: a 10,000-product catalog is about 3 MB and 5 levels deep.
        package static let catalog = Limits(maxBytes: CatalogLimits.maxBytes, maxDepth: CatalogLimits.maxDepth)
    }

    /// A member name seen twice in one object.
    package struct DuplicateKey {
        package var key: String
        package var offset: Int
        package var firstOffset: Int
    }

    package let root: JSONNode
    package let duplicateKeys: [DuplicateKey]

    /// Parses a whole text.
    ///
    /// - Throws: `JSONSyntaxError` for malformed JSON, a text over `limits.maxBytes` or nesting
    ///   deeper than `limits.maxDepth`.
    package static func parse(_ data: Data, limits: Limits) throws -> JSONDocument {
        guard data.count <= limits.maxBytes else {
            throw JSONSyntaxError(
                offset: 0,
                message: "file is \(data.count) bytes, over the limit of \(limits.maxBytes) bytes")
        }
        return try data.withUnsafeBytes { raw in
            var reader = JSONReader(bytes: raw, maxDepth: limits.maxDepth)
            var duplicates: [DuplicateKey] = []
            if raw.count >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF {
                throw JSONSyntaxError(offset: 0, message: "file starts with a UTF-8 byte order mark, which JSON does not allow")
            }
            let root = try readNode(&reader, duplicates: &duplicates)
            try reader.finish()
            return JSONDocument(root: root, duplicateKeys: duplicates)
        }
    }

    /// Parses a file that is checked, as ``parse(_:limits:)`` does, reporting its problems with
    /// `report(code, message, offset, help)`: the syntax error that stops it (then `nil`), or each
    /// duplicate key, with where in `lines` the first one is (`name` writes a key into the
    /// messages).
    package static func parse(
        _ data: Data, limits: Limits, lines: LineTable, name: (String) -> String = Diagnostic.excerpt,
        report: (_ code: DiagnosticCode, _ message: String, _ offset: Int, _ help: String?) -> Void
    ) -> JSONDocument? {
        let document: JSONDocument
        do {
            document = try parse(data, limits: limits)
        } catch let error as JSONSyntaxError {
            report(.malformedJSON, error.message, error.offset, error.help)
            return nil
        } catch {
            report(.malformedJSON, "\(error)", 0, nil)
            return nil
        }
        for duplicate in document.duplicateKeys {
            let first = lines.location(of: duplicate.firstOffset)
            report(
                .duplicateKey, "duplicate key `\(name(duplicate.key))`", duplicate.offset,
                "the first `\(name(duplicate.key))` is at line \(first.line), column \(first.column); keep one")
        }
        return document
    }

    private static func readNode(_ reader: inout JSONReader, duplicates: inout [DuplicateKey]) throws -> JSONNode {
        let kind = try reader.peek()
        let offset = reader.valueOffset
        switch kind {
        case .object:
            var members: [JSONMember] = []
            // Small objects (most of a catalog) find repeated names by a scan; large ones by hashing.
            var seen: [String: Int]?
            try reader.readObject { reader, key in
                let name = key.string
                let value = try readNode(&reader, duplicates: &duplicates)
                var first: Int?
                if let index = seen {
                    first = index[name]
                } else {
                    first = members.first { $0.key == name }?.keyOffset
                }
                if let first {
                    duplicates.append(DuplicateKey(key: name, offset: key.offset, firstOffset: first))
                    return
                }
                members.append(JSONMember(key: name, keyOffset: key.offset, value: value))
                if seen != nil {
                    seen![name] = key.offset
                } else if members.count == 16 {
                    seen = Dictionary(members.map { ($0.key, $0.keyOffset) }, uniquingKeysWith: { first, _ in first })
                }
            }
            return JSONNode(offset: offset, value: .object(members))
        case .array:
            var elements: [JSONNode] = []
            try reader.readArray { reader, _ in
                elements.append(try readNode(&reader, duplicates: &duplicates))
            }
            return JSONNode(offset: offset, value: .array(elements))
        case .string:
            return JSONNode(offset: offset, value: .string(try reader.readString()))
        case .number:
            return JSONNode(offset: offset, value: .number(try reader.readNumber()))
        case .bool:
            return JSONNode(offset: offset, value: .bool(try reader.readBool()))
        case .null:
            try reader.readNull()
            return JSONNode(offset: offset, value: .null)
        }
    }
}

/// One value of a ``JSONDocument`` and where it starts.
package struct JSONNode {
    package var offset: Int
    package var value: JSONValue

    /// The kind of value, for "expected ..., found ..." messages.
    package var kind: JSONReader.Kind {
        switch value {
        case .object: .object
        case .array: .array
        case .string: .string
        case .number: .number
        case .bool: .bool
        case .null: .null
        }
    }
}

/// The value of a ``JSONNode``.
package indirect enum JSONValue {
    case object([JSONMember])
    case array([JSONNode])
    case string(String)
    case number(JSONNumber)
    case bool(Bool)
    case null
}

/// A member of a JSON object: its name, where the name starts, and its value.
package struct JSONMember {
    package var key: String
    package var keyOffset: Int
    package var value: JSONNode
}

extension JSONDocument {
    /// The offset just past the value that starts at `offset` in `data` (a value of a parsed
    /// document, so it is well formed), for tools that hand part of a text on to another reader;
    /// `nil` when no value starts there.
    package static func endOfValue(at offset: Int, in data: Data, limits: Limits) -> Int? {
        guard offset >= 0, offset < data.count else { return nil }
        return data.withUnsafeBytes { raw -> Int? in
            var reader = JSONReader(bytes: UnsafeRawBufferPointer(rebasing: raw[offset...]), maxDepth: limits.maxDepth)
            guard (try? reader.skipValue()) != nil else { return nil }
            return offset + reader.offset
        }
    }
}
