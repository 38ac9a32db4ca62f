import Foundation
import Testing

@testable import Entitle

/// Compares JSON the way the corpus needs: every member the expectation names must be in the
/// actual value and equal; members it leaves out are not checked. Arrays and scalars must match
/// exactly. Parsing uses the package's own reader, so booleans and numbers never blur.
enum JSONSubset {
    static func parse(_ text: String) throws -> JSONNode {
        try JSONDocument.parse(Data(text.utf8), limits: .catalog).root
    }

    /// A description of the first difference, or `nil` when `actual` contains `expected`.
    static func mismatch(expected: JSONNode, actual: JSONNode, path: String = "$") -> String? {
        switch (expected.value, actual.value) {
        case (.object(let want), .object(let have)):
            for member in want {
                guard let other = have.first(where: { $0.key == member.key }) else {
                    return "\(path).\(member.key): missing"
                }
                if let problem = mismatch(expected: member.value, actual: other.value, path: "\(path).\(member.key)") {
                    return problem
                }
            }
            return nil
        case (.array(let want), .array(let have)):
            guard want.count == have.count else { return "\(path): \(have.count) elements, expected \(want.count)" }
            for (index, pair) in zip(want, have).enumerated() {
                if let problem = mismatch(expected: pair.0, actual: pair.1, path: "\(path)[\(index)]") { return problem }
            }
            return nil
        case (.string(let a), .string(let b)): return a == b ? nil : "\(path): `\(b)`, expected `\(a)`"
        case (.number(let a), .number(let b)): return a.text == b.text ? nil : "\(path): \(b.text), expected \(a.text)"
        case (.bool(let a), .bool(let b)): return a == b ? nil : "\(path): \(b), expected \(a)"
        case (.null, .null): return nil
        default: return "\(path): found \(actual.kind.phrase), expected \(expected.kind.phrase)"
        }
    }
}

/// One case of the shared corpus: catalogs, receipts, an instant and the expected result.
struct CorpusCase: CustomTestStringConvertible, Sendable {
    var file: String
    var description: String
    var catalog: String
    /// Paths relative to the package root, or inline receipt JSON.
    var receipts: [Source]
    var app: String?
    var at: String
    var expect: String

    enum Source: Sendable {
        case path(String)
        case inline(String)
    }

    var testDescription: String { file }

    static func all() -> [CorpusCase] {
        let directory = Fixtures.corpusDirectory.appendingPathComponent("cases")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return files.map { name in
            let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)!
            let root = try! JSONDocument.parse(data, limits: .catalog).root
            guard case .object(let members) = root.value else { fatalError("\(name): not an object") }
            func member(_ key: String) -> JSONNode? { members.first { $0.key == key }?.value }
            func string(_ key: String) -> String? {
                if case .string(let value)? = member(key)?.value { return value }
                return nil
            }
            var receipts: [Source] = []
            if case .array(let elements)? = member("receipts")?.value {
                for element in elements {
                    switch element.value {
                    case .string(let path): receipts.append(.path(path))
                    default: receipts.append(.inline(slice(data, element)))
                    }
                }
            }
            return CorpusCase(
                file: name, description: string("description") ?? "", catalog: string("catalog")!,
                receipts: receipts, app: string("app"), at: string("at")!, expect: slice(data, member("expect")!))
        }
    }

    /// The source text of a node, by re-reading one value from its offset.
    private static func slice(_ data: Data, _ node: JSONNode) -> String {
        data.withUnsafeBytes { raw in
            var sub = JSONReader(bytes: UnsafeRawBufferPointer(rebasing: raw[node.offset...]), maxDepth: 64)
            try! sub.skipValue()
            return String(decoding: raw[node.offset..<(node.offset + sub.valueOffset)], as: UTF8.self)
        }
    }
}
