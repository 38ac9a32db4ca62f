import Foundation
import Testing

@testable import Entitle

/// The timeline as a browser shows it: headless Chromium screenshots the SVG of an example
/// customer, and the PNG's pixels are read back. Runs when Chromium is installed; CI installs it
/// (.ci/run), and there the test must run.
@Suite("In a real browser")
struct BrowserTests {
    static var required: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Writes `svg` to a file of its own, screenshots it at its size, and decodes the PNG.
    static func screenshot(_ svg: String) async throws -> (image: PNGImage, width: Int, height: Int, bytes: Int) {
        let root = try #require(try SVGTree(svg).elements.first)
        let width = Int(try #require(root.number("width")))
        let height = Int(try #require(root.number("height")))
        let directory = Fixtures.scratch("entitle-browser")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("timeline.svg")
        let png = directory.appendingPathComponent("timeline.png")
        try Data(svg.utf8).write(to: page)
        try await HeadlessBrowser.screenshot(page, width: width, height: height, into: png)
        let data = try Data(contentsOf: png)
        return (try PNGImage(data: data), width, height, data.count)
    }

    @Test(
        "headless Chromium shows an example customer's timeline: its size, each product's color, the line at the instant",
        .enabled(if: HeadlessBrowser.path != nil || required, "no Chromium installed (Debian: apt-get install chromium)"))
    func timelineInChromium() async throws {
        _ = try #require(HeadlessBrowser.path, "CI installs Chromium (.ci/run): the browser test must run there")
        let receipt = try String(contentsOfFile: CLITests.receipt("diagrams-trial.json"), encoding: .utf8)
        let explanation = try Fixtures.examples.explain(
            app: Diagrams.app, receipts: [ParsedReceipt(Fixtures.receipt(receipt))],
            at: Fixtures.instant("2026-02-20T00:00:00Z"))
        let shot = try await Self.screenshot(explanation.svg)
        #expect(shot.image.width == shot.width && shot.image.height == shot.height)
        let pixels = shot.image.width * shot.image.height
        // The trial's bars (two rows of two weeks), the pass's (a day and a half), the
        // subscription's (five weeks and its stripes), each also in the legend.
        let trial = shot.image.count(near: TimelineSVG.palette[0])
        let pass = shot.image.count(near: TimelineSVG.palette[1])
        let subscription = shot.image.count(near: TimelineSVG.palette[2])
        #expect(trial > 2_000, "trial: \(trial) pixels")
        #expect(pass > 150, "day pass: \(pass) pixels")
        #expect(subscription > 2_500, "subscription: \(subscription) pixels")
        #expect(subscription > trial, "five weeks of subscription against two of trial: \(subscription), \(trial)")
        #expect(shot.image.count(near: TimelineSVG.atColor) > 60)
        // Mostly white, but drawn on.
        let white = shot.image.count(near: "#ffffff", tolerance: 4)
        #expect(white > pixels / 2 && white < pixels * 97 / 100, "\(white) white of \(pixels)")

        // The same browser on a picture without the bars shows none of their colors: the counts
        // above come from what was drawn.
        let blank = try await Self.screenshot(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(shot.width)" height="\(shot.height)" viewBox="0 0 \(shot.width) \(shot.height)">
            <rect width="100%" height="100%" fill="#ffffff"/></svg>
            """)
        #expect(blank.image.count(near: TimelineSVG.palette[0]) == 0)
        #expect(blank.image.count(near: "#ffffff", tolerance: 4) == pixels)
        #expect(blank.bytes < shot.bytes)
    }

    @Test("the PNG reader reads a stored block and undoes each row filter")
    func pngReader() throws {
        // 2x2 RGB in one stored block: row 0 unfiltered (red, blue); row 1 filtered `up`, its
        // bytes added to row 0's, wrapping to black.
        let raw: [UInt8] = [0, 255, 0, 0, 0, 0, 255, 2, 1, 0, 0, 0, 0, 1]
        let deflated: [UInt8] = [0x78, 0x01, 0x01, UInt8(raw.count), 0, ~UInt8(raw.count), 0xFF] + raw + [0, 0, 0, 0]
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let length = UInt32(body.count)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + Array(type.utf8) + body + [0, 0, 0, 0]
        }
        let png =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0])
            + chunk("IDAT", deflated) + chunk("IEND", [])
        let image = try PNGImage(data: Data(png))
        #expect(image.width == 2 && image.height == 2)
        #expect(image.pixels == [255, 0, 0, 255, 0, 0, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255])
        #expect(image.count(near: "#ff0000", tolerance: 0) == 1)
        #expect(image.count(near: "#000000", tolerance: 0) == 2)
        #expect(throws: PNGImage.Failure.self) { try PNGImage(data: Data("not a png".utf8)) }
    }
}
