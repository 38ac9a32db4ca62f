// The `story` target: bytes as a customer's story (Sources/EntitleCommandLine/Stories), told for
// the example catalogs. fuzz.sh compiles the story files of the command-line target into this
// module (without their `import Entitle`: here the library is the same module).

import Foundation

/// Bytes as a story: an array of events, or `{"app", "story": [...]}`, told for the example
/// catalogs (the app the object names when there is a catalog for it, else diagrams).
///
/// Invariants: every diagnostic is located inside the input; a story told without an error is
/// told the same twice; each receipt it writes reads back the same from its JSON; the receipts
/// evaluate and render at the fixed instants and around each receipt's own dates; the story the
/// receipts tell back (as `diff --prove --witnesses` tells a witness) is JSON.
func fuzzStory(_ data: Data) {
    let portfolio = products.portfolio
    guard let (receipts, app) = tellStory(data, portfolio: portfolio) else { return }
    guard let again = tellStory(data, portfolio: portfolio), again.receipts == receipts else {
        fatalError("invariant: one story told twice wrote different receipts")
    }
    for receipt in receipts { _ = checkRoundTrip(receipt, what: "a story's receipt") }
    let parsed = receipts.map(ParsedReceipt.init)
    var instants = fixedInstants
    for receipt in receipts.prefix(2) {
        for date in dates(of: receipt, limit: 3) { instants += withNeighbours(date) }
    }
    guard let catalog = portfolio.catalog(for: app) else { fatalError("invariant: a story was told for `\(app)`, which has no catalog") }
    for instant in instants { evaluateAndRender(catalog, parsed, at: instant) }
    if let told = StoryTeller.story(of: receipts, app: app, at: instants[instants.count - 1], portfolios: [portfolio]) {
        checkJSON(told.rendered(), what: "the story told back")
    }
}

/// The receipts the story in `data` tells and its app; `nil` (after checking that every
/// diagnostic is located inside the input) when it has errors.
func tellStory(_ data: Data, portfolio: Portfolio) -> (receipts: [Receipt], app: String)? {
    var reader = JSONShapeReader(file: "story.json", data: data)
    let document = JSONDocument.parse(
        data, limits: .catalog, lines: reader.lines, name: { $0 }, report: { reader.report($0, $1, at: $2, path: "", help: $3) })
    var receipts: [Receipt]?
    var app = exampleApp
    if let document {
        var story = document.root
        var path = ""
        if case .object(let members) = document.root.value {
            for member in members {
                if member.key == "story" {
                    story = member.value
                    path = "story"
                } else if member.key == "app", case .string(let name) = member.value.value, portfolio.catalog(for: name) != nil {
                    app = name
                }
            }
        }
        receipts = Story.receipts(story, path: path, app: app, portfolio: portfolio, reader: &reader)
    }
    for diagnostic in reader.diagnostics {
        consume(diagnostic.description)
        checkLocatedInside(diagnostic, reader.lines, data)
    }
    guard let receipts, !reader.hasErrors else {
        if receipts == nil, !reader.hasErrors { fatalError("invariant: a story was refused without an error") }
        return nil
    }
    return (receipts, app)
}

/// Invariant: a diagnostic points at a line and column of the input (or its very end).
func checkLocatedInside(_ diagnostic: Diagnostic, _ lines: LineTable, _ data: Data) {
    guard let location = diagnostic.location else { fatalError("invariant: a story's diagnostic has no location: \(diagnostic)") }
    let (lastLine, lastColumn) = lines.location(of: data.count)
    guard location.line >= 1, location.column >= 1,
        location.line < lastLine || (location.line == lastLine && location.column <= lastColumn)
    else {
        fatalError(
            "invariant: a story's diagnostic is located at \(location.line):\(location.column), past the input's end \(lastLine):\(lastColumn): \(diagnostic)"
        )
    }
}
