/// A customer's timeline drawn from an ``Explanation``, as SVG: one row per feature, a lane per
/// source that covered it or has something to show (a bar per span of coverage, a color per
/// source; grace periods and billing retry striped), marks for purchases, refunds and later
/// snapshots, a line at the instant explained, and a legend.
///
/// Everything drawn is the explanation's, which holds the evaluator's own decisions: the spans
/// are the products' ``ProductExplanation/coverage`` and the rules' and grants'
/// ``SourceExplanation/span``; nothing is evaluated or merged again here.
///
/// The picture is bounded whatever the input: at most ``maxFeatures`` rows, ``maxLanes`` lanes a
/// row, ``maxShapes`` bars and marks in all, names shortened; what is left out is said under the
/// legend.
struct TimelineSVG {
    static let maxFeatures = 80
    static let maxLanes = 16
    static let maxShapes = 4_000
    static let maxLegendEntries = 30

    /// One color per source, in the order sources first appear (Tableau's ten, which stay apart
    /// for most kinds of color blindness).
    static let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"]
    static let atColor = "#d62728"
    static let ink = "#24292f"
    static let muted = "#57606a"

    // Layout, in pixels.
    static let width = 1000
    static let labelX = 12.0
    static let plotLeft = 290.0
    static let plotRight = 980.0
    static let laneHeight = 18.0
    static let headerHeight = 22.0
    static let barHeight = 10.0
    /// The width of a character of the 11 px monospace font, for shortening labels.
    static let characterWidth = 6.7

    let explanation: Explanation
    /// The features drawn: all of them, or those asked for.
    let features: [FeatureExplanation]
    /// When set, the sources drawn: this product's lanes only.
    let product: String?

    /// What one lane shows.
    struct Lane {
        var label: String
        var color: Int
        var bars: [Bar] = []
        var marks: [Mark] = []
    }

    struct Bar {
        enum Kind { case covered, grace, billingRetry, refunded }
        var kind: Kind
        /// Milliseconds; `nil` when open (always before, never ending).
        var start: Int64?
        var end: Int64?
        var tooltip: String
    }

    struct Mark {
        enum Kind { case purchase, notCounted, refund, snapshot, renewal }
        var kind: Kind
        var at: Int64
        var tooltip: String
    }

    struct Row {
        var feature: FeatureExplanation
        var lanes: [Lane]
        var moreLanes: Int
    }

    init(_ explanation: Explanation, features: [FeatureExplanation]? = nil, product: String? = nil) {
        self.explanation = explanation
        self.features = features ?? explanation.features
        self.product = product
    }

    // MARK: What is drawn

    /// The rows, their lanes and what each shows, within the bounds; the colors by source, and
    /// what was left out.
    func rows() -> (rows: [Row], colors: [String], notes: [String]) {
        var products: [String: ProductExplanation] = [:]
        for item in explanation.products where products[item.id] == nil { products[item.id] = item }
        var colors: [String: Int] = [:]
        var order: [String] = []
        var budget = Self.maxShapes
        var stopped = false
        var rows: [Row] = []
        for feature in features.prefix(Self.maxFeatures) {
            // Once the bars and marks allowed are drawn, no more rows: an empty one would read
            // as a feature nothing covered.
            if stopped { break }
            var lanes: [Lane] = []
            var more = 0
            for source in feature.sources where product == nil || source.id == product {
                guard lanes.count < Self.maxLanes, !stopped else {
                    if Self.hasSomethingToShow(source, products: products) { more += 1 }
                    continue
                }
                guard var lane = lane(source, products: products, budget: &budget, stopped: &stopped) else { continue }
                if colors[source.id] == nil {
                    colors[source.id] = order.count
                    order.append(source.id)
                }
                lane.color = colors[source.id]!
                lanes.append(lane)
            }
            rows.append(Row(feature: feature, lanes: lanes, moreLanes: more))
        }
        var notes: [String] = []
        if features.count > rows.count {
            notes.append(
                "\(features.count - rows.count) more feature\(features.count - rows.count == 1 ? "" : "s") not drawn: draw one with --feature ID")
        }
        if stopped { notes.append("drawing stopped after \(Self.maxShapes) bars and marks: draw less with --feature ID or --product ID") }
        for ignored in explanation.ignoredReceipts.prefix(5) {
            notes.append("receipt \(ignored.receipt) (\(ignored.app)) ignored: \(ignored.reason)")
        }
        if explanation.ignoredReceipts.count > 5 { notes.append("\(explanation.ignoredReceipts.count - 5) more receipts ignored") }
        return (rows, order, notes)
    }

    /// Whether a source would have a lane: a product with coverage, transactions or renewal
    /// entries, a rule that matched, a grant that counted.
    static func hasSomethingToShow(_ source: SourceExplanation, products: [String: ProductExplanation]) -> Bool {
        guard source.kind == .product else { return source.span != nil }
        guard let product = products[source.id] else { return false }
        return !product.coverage.isEmpty || !product.transactions.isEmpty || !product.renewals.isEmpty
    }

    /// A source's lane, or `nil` when it has nothing to show (a product never bought, a rule
    /// that matched no receipt).
    private func lane(
        _ source: SourceExplanation, products: [String: ProductExplanation], budget: inout Int,
        stopped: inout Bool
    ) -> Lane? {
        var lane = Lane(label: source.id, color: 0)
        func spend() -> Bool {
            guard budget > 0 else {
                stopped = true
                return false
            }
            budget -= 1
            return true
        }
        switch source.kind {
        case .product:
            guard let product = products[source.id] else { return nil }
            for span in product.coverage {
                guard spend() else { break }
                let kind: Bar.Kind = span.refunded ? .refunded : span.grace ? .grace : .covered
                let what =
                    switch kind {
                    case .refunded: "covered until refunded or revoked, no access now "
                    case .grace: "grace period "
                    case .covered, .billingRetry: "covered "
                    }
                lane.bars.append(
                    Bar(
                        kind: kind, start: span.start.millisecondsSince1970, end: span.end?.millisecondsSince1970,
                        tooltip: "\(source.id): \(what)\(Self.text(span))"))
            }
            if let since = product.billingRetrySince, since <= explanation.at, spend() {
                lane.bars.append(
                    Bar(
                        kind: .billingRetry, start: since.millisecondsSince1970, end: explanation.at.millisecondsSince1970,
                        tooltip: "\(source.id): billing retry since \(since.rfc3339), no access: \(product.reason)"))
            }
            for transaction in product.transactions {
                let facts = "transaction \(transaction.transactionId) in receipt \(transaction.receipt): \(transaction.reason)"
                let copy = transaction.exclusion == .duplicate || transaction.exclusion == .superseded || transaction.exclusion == .signedLater
                if !copy {
                    guard spend() else { break }
                    lane.marks.append(
                        Mark(
                            kind: transaction.counted ? .purchase : .notCounted,
                            at: transaction.purchaseDate.millisecondsSince1970,
                            tooltip: "bought \(transaction.purchaseDate.rfc3339): \(facts)"))
                }
                if let cancelled = transaction.cancellationDate, !copy {
                    guard spend() else { break }
                    lane.marks.append(
                        Mark(
                            kind: .refund, at: cancelled.millisecondsSince1970,
                            tooltip: "cancelled \(cancelled.rfc3339): \(facts)"))
                }
                // A snapshot signed after the purchase: the App Store's later word on the transaction.
                if let signed = transaction.signedDate, signed > transaction.purchaseDate {
                    guard spend() else { break }
                    lane.marks.append(
                        Mark(
                            kind: .snapshot, at: signed.millisecondsSince1970,
                            tooltip: "snapshot signed \(signed.rfc3339): \(facts)"))
                }
            }
            for renewal in product.renewals {
                guard let signed = renewal.signedDate else { continue }
                guard spend() else { break }
                lane.marks.append(
                    Mark(
                        kind: .renewal, at: signed.millisecondsSince1970,
                        tooltip: "renewal entry of chain \(renewal.originalTransactionId) in receipt \(renewal.receipt), "
                            + "signed \(signed.rfc3339): \(renewal.reason)"))
            }
        case .grandfathered, .grant, .item:
            if let span = source.span, spend() {
                lane.bars.append(
                    Bar(
                        kind: .covered,
                        start: span.start <= Instant.earliest ? nil : span.start.millisecondsSince1970,
                        end: span.end?.millisecondsSince1970, tooltip: "\(source.id): \(source.reason)"))
            }
        }
        return lane.bars.isEmpty && lane.marks.isEmpty ? nil : lane
    }

    static func text(_ span: ExplainedSpan) -> String {
        "[\(span.start.rfc3339), \(span.end?.rfc3339 ?? "no end"))"
    }

    // MARK: The picture

    /// The SVG document.
    var rendered: String {
        let (rows, colors, notes) = rows()
        let scale = TimeScale(rows: rows, at: explanation.at.millisecondsSince1970, left: Self.plotLeft, right: Self.plotRight)
        var svg = SVGDocument(width: Self.width, height: 0)
        svg.element("rect", ["width": "100%", "height": "100%", "fill": "#ffffff"])
        svg.element(
            "text", ["x": .number(Self.labelX), "y": 22, "font-size": 14, "font-weight": "bold", "fill": .text(Self.ink)],
            text: SVGDocument.shortened(explanation.app, to: 80) + " at " + explanation.at.rfc3339)
        svg.element(
            "text", ["x": .number(Self.labelX), "y": 40, "fill": .text(Self.muted)],
            text: "one row per feature; a lane per source: bars where it covers, marks where something happened")
        var y = 84.0
        let plotTop = y - 6
        // The rows first (backgrounds, labels, bars, marks), then the grid and the line at the
        // instant over them, once the height is known.
        var body = SVGDocument(width: Self.width, height: 0)
        var usedGrace: Set<Int> = []
        var usedRetry: Set<Int> = []
        var usedRefunded = false
        for (index, row) in rows.enumerated() {
            let height = Self.headerHeight + Self.laneHeight * Double(max(row.lanes.count, 1)) + (row.moreLanes > 0 ? Self.laneHeight : 0)
            if index % 2 == 0 {
                body.element(
                    "rect",
                    [
                        "x": 4, "y": .number(y), "width": .number(Double(Self.width) - 8), "height": .number(height),
                        "fill": "#f6f8fa",
                    ])
            }
            body.element(
                "text", ["x": .number(Self.labelX), "y": .number(y + 15), "font-weight": "bold", "fill": .text(Self.ink)],
                text: SVGDocument.shortened(row.feature.id, to: Int((Self.plotLeft - Self.labelX - 8) / Self.characterWidth)))
            body.element(
                "text", ["x": .number(Self.plotLeft), "y": .number(y + 15), "fill": .text(row.feature.enabled ? Self.ink : Self.muted)],
                text: Self.state(row.feature))
            var laneTop = y + Self.headerHeight
            if row.lanes.isEmpty {
                body.element(
                    "text", ["x": .number(Self.labelX + 12), "y": .number(laneTop + 13), "fill": .text(Self.muted)],
                    text: row.feature.sources.isEmpty ? "nothing can grant it" : "no source ever covered it")
            }
            for lane in row.lanes {
                body.element(
                    "text", ["x": .number(Self.labelX + 12), "y": .number(laneTop + 13), "fill": .text(Self.muted)],
                    text: SVGDocument.shortened(lane.label, to: Int((Self.plotLeft - Self.labelX - 20) / Self.characterWidth)))
                for bar in lane.bars {
                    let pattern = Self.draw(bar, color: lane.color % Self.palette.count, top: laneTop, scale: scale, into: &body)
                    if bar.kind == .grace { usedGrace.insert(pattern) }
                    if bar.kind == .billingRetry { usedRetry.insert(pattern) }
                    if bar.kind == .refunded { usedRefunded = true }
                }
                let middle = laneTop + Self.laneHeight / 2
                for mark in lane.marks {
                    Self.draw(mark, x: scale.x(mark.at), y: middle, into: &body)
                }
                laneTop += Self.laneHeight
            }
            if row.moreLanes > 0 {
                body.element(
                    "text", ["x": .number(Self.labelX + 12), "y": .number(laneTop + 13), "fill": .text(Self.muted)],
                    text: "\(row.moreLanes) more source\(row.moreLanes == 1 ? "" : "s") not drawn")
            }
            y += height
        }
        let plotBottom = max(y, plotTop + 20)

        // The patterns of the striped bars, for the colors that have them, and the legend's.
        for index in usedGrace.sorted() { Self.stripes(&svg, id: "grace-\(index)", color: Self.palette[index], angle: 45, width: 3) }
        for index in usedRetry.sorted() { Self.stripes(&svg, id: "retry-\(index)", color: Self.palette[index], angle: -45, width: 1.5) }
        Self.stripes(&svg, id: "grace-legend", color: Self.muted, angle: 45, width: 3)
        Self.stripes(&svg, id: "retry-legend", color: Self.muted, angle: -45, width: 1.5)

        // The axis: a line per tick with its date, behind the rows' marks.
        for tick in scale.ticks() {
            svg.element(
                "line",
                [
                    "x1": .number(tick.x), "y1": .number(plotTop), "x2": .number(tick.x), "y2": .number(plotBottom),
                    "stroke": "#d0d7de", "stroke-width": 1,
                ])
            svg.element(
                "text",
                [
                    "x": .number(tick.x), "y": .number(plotTop - 4), "text-anchor": "middle", "fill": .text(Self.muted),
                    "font-size": 10,
                ], text: tick.label)
        }
        svg.append(body)
        // The instant explained, over everything.
        let atX = scale.x(explanation.at.millisecondsSince1970)
        svg.element(
            "line",
            [
                "x1": .number(atX), "y1": .number(plotTop - 19), "x2": .number(atX), "y2": .number(plotBottom),
                "stroke": .text(Self.atColor), "stroke-width": 1.5, "stroke-dasharray": "4 3",
            ],
            tooltip: "at \(explanation.at.rfc3339)")
        let anchor = atX > Self.plotRight - 120 ? "end" : atX < Self.plotLeft + 120 ? "start" : "middle"
        svg.element(
            "text",
            [
                "x": .number(atX), "y": .number(plotTop - 22), "text-anchor": .text(anchor), "fill": .text(Self.atColor),
                "font-size": 10, "font-weight": "bold",
            ], text: "at " + explanation.at.rfc3339)

        y = Self.legend(&svg, top: plotBottom + 14, colors: colors, refunded: usedRefunded)
        for note in notes {
            y += 16
            svg.element(
                "text", ["x": .number(Self.labelX), "y": .number(y), "fill": .text(Self.muted)],
                text: SVGDocument.truncated(note, to: 140))
        }
        svg.height = Int((y + 14).rounded(.up))
        return svg.rendered(
            title: "entitle: \(SVGDocument.shortened(explanation.app, to: 200)) at \(explanation.at.rfc3339)",
            fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, 'DejaVu Sans Mono', monospace", fontSize: 11)
    }

    /// Draws a bar in the lane whose top is `top`, in the palette's color `color` (striped with
    /// that color's pattern for grace and billing retry), with an arrow past the plot's edge for
    /// an open end; returns the color, whose pattern the document must define.
    private static func draw(_ bar: Bar, color: Int, top laneTop: Double, scale: TimeScale, into svg: inout SVGDocument) -> Int {
        let x0 = bar.start.map(scale.x) ?? plotLeft
        let x1 = bar.end.map(scale.x) ?? plotRight
        let top = laneTop + (laneHeight - barHeight) / 2
        let fill =
            switch bar.kind {
            case .covered: palette[color]
            case .grace: "url(#grace-\(color))"
            case .billingRetry: "url(#retry-\(color))"
            case .refunded: palette[color]
            }
        svg.element(
            "rect",
            [
                "x": .number(x0), "y": .number(top), "width": .number(max(x1 - x0, 1.5)), "height": .number(barHeight),
                "rx": 2, "fill": .text(fill), "stroke": .text(bar.kind == .covered ? "none" : palette[color]),
                "stroke-dasharray": .text(bar.kind == .billingRetry || bar.kind == .refunded ? "3 2" : "none"),
                // Refunded coverage is history: the source's color, faded.
                "fill-opacity": bar.kind == .refunded ? 0.3 : .absent,
            ],
            tooltip: SVGDocument.truncated(bar.tooltip, to: 300))
        // Open ends (covers always, never ends): a triangle pointing out of the plot.
        let (half, height) = (SVGDocument.format(barHeight / 2 + 2), SVGDocument.format(top - 2))
        if bar.end == nil {
            svg.element("path", ["d": .text("M\(SVGDocument.format(plotRight)) \(height)l6 \(half)l-6 \(half)z"), "fill": .text(palette[color])])
        }
        if bar.start == nil {
            svg.element("path", ["d": .text("M\(SVGDocument.format(plotLeft)) \(height)l-6 \(half)l6 \(half)z"), "fill": .text(palette[color])])
        }
        return color
    }

    /// `on until 2026-02-17T00:00:00Z, from com.example.diagrams.sync.monthly`, `off`.
    static func state(_ feature: FeatureExplanation) -> String {
        var text = feature.enabled ? "on " + (feature.until.map { "until \($0.rfc3339)" } ?? "with no end") : "off"
        if feature.enabled, let source = feature.decidedBy { text += ", from " + SVGDocument.shortened(source, to: 60) }
        return text
    }

    /// Diagonal stripes of `color` on white, for a bar whose access is not plain coverage.
    private static func stripes(_ svg: inout SVGDocument, id: String, color: String, angle: Int, width: Double) {
        svg.definition(
            "pattern",
            [
                "id": .text(id), "width": 6, "height": 6, "patternUnits": "userSpaceOnUse",
                "patternTransform": .text("rotate(\(angle))"),
            ]
        ) { pattern in
            pattern.element("rect", ["width": 6, "height": 6, "fill": "#ffffff"])
            pattern.element("rect", ["width": .number(width), "height": 6, "fill": .text(color)])
        }
    }

    private static func draw(_ mark: Mark, x: Double, y: Double, into svg: inout SVGDocument) {
        let tooltip = SVGDocument.truncated(mark.tooltip, to: 300)
        switch mark.kind {
        case .purchase:
            svg.element(
                "circle", ["cx": .number(x), "cy": .number(y), "r": 4, "fill": .text(ink), "stroke": "#ffffff", "stroke-width": 1],
                tooltip: tooltip)
        case .notCounted:
            svg.element(
                "circle", ["cx": .number(x), "cy": .number(y), "r": 3.5, "fill": "#ffffff", "stroke": .text(ink), "stroke-width": 1.5],
                tooltip: tooltip)
        case .refund:
            svg.element(
                "path",
                [
                    "d": .text("M\(SVGDocument.format(x - 4)) \(SVGDocument.format(y - 4))l8 8m0 -8l-8 8"),
                    "stroke": .text(atColor), "stroke-width": 2.5,
                ], tooltip: tooltip)
        case .snapshot:
            svg.element("path", ["d": .text(diamond(x: x, y: y)), "fill": "#6639ba", "stroke": "#ffffff", "stroke-width": 1], tooltip: tooltip)
        case .renewal:
            svg.element("path", ["d": .text(diamond(x: x, y: y)), "fill": "#ffffff", "stroke": "#6639ba", "stroke-width": 1.5], tooltip: tooltip)
        }
    }

    private static func diamond(x: Double, y: Double) -> String {
        "M\(SVGDocument.format(x)) \(SVGDocument.format(y - 5))l4.5 5l-4.5 5l-4.5 -5z"
    }

    /// The legend: each source's color, the striped bars, the marks and the line; returns the
    /// baseline of its last line.
    private static func legend(_ svg: inout SVGDocument, top: Double, colors: [String], refunded: Bool) -> Double {
        var x = labelX
        var y = top + 10
        func place(_ label: String) -> Double {
            let width = 22 + Double(label.unicodeScalars.count) * characterWidth + 16
            if x + width > Double(Self.width) - 12, x > labelX + 60 {
                x = labelX + 60
                y += 18
            }
            defer { x += width }
            return x
        }
        func swatch(_ fill: String, stroke: String = "none", dashed: Bool = false, opacity: Double = 1, _ label: String) {
            let at = place(label)
            svg.element(
                "rect",
                [
                    "x": .number(at), "y": .number(y - 9), "width": 16, "height": 10, "rx": 2, "fill": .text(fill),
                    "fill-opacity": opacity < 1 ? .number(opacity) : .absent, "stroke": .text(stroke),
                    "stroke-dasharray": .text(dashed ? "3 2" : "none"),
                ])
            svg.element("text", ["x": .number(at + 22), "y": .number(y), "fill": .text(ink)], text: label)
        }
        svg.element("text", ["x": .number(labelX), "y": .number(y), "font-weight": "bold", "fill": .text(ink)], text: "legend")
        x = labelX + 60
        for (index, id) in colors.prefix(maxLegendEntries).enumerated() {
            swatch(palette[index % palette.count], SVGDocument.shortened(id, to: 60))
        }
        if colors.count > maxLegendEntries {
            let label = "and \(colors.count - maxLegendEntries) more sources"
            svg.element("text", ["x": .number(place(label)), "y": .number(y), "fill": .text(muted)], text: label)
        }
        x = labelX + 60
        y += 20
        swatch("url(#grace-legend)", stroke: muted, "grace period (access while billing is retried)")
        swatch("url(#retry-legend)", stroke: muted, dashed: true, "billing retry (no access)")
        // Drawn only when a refund took coverage back, so timelines without one read as before.
        if refunded { swatch(muted, stroke: muted, dashed: true, opacity: 0.3, "refunded (covered until the refund, no access now)") }
        x = labelX + 60
        y += 20
        let marks: [(Mark.Kind, String)] = [
            (.purchase, "purchase that counts"), (.notCounted, "purchase that does not count"),
            (.refund, "refund or revocation"), (.snapshot, "later-signed snapshot of a transaction"),
            (.renewal, "renewal entry signed"),
        ]
        for (kind, label) in marks {
            let at = place(label)
            draw(Mark(kind: kind, at: 0, tooltip: label), x: at + 8, y: y - 4, into: &svg)
            svg.element("text", ["x": .number(at + 22), "y": .number(y), "fill": .text(ink)], text: label)
        }
        let label = "the instant explained"
        let at = place(label)
        svg.element(
            "line",
            [
                "x1": .number(at + 8), "y1": .number(y - 11), "x2": .number(at + 8), "y2": .number(y + 2),
                "stroke": .text(atColor), "stroke-width": 1.5, "stroke-dasharray": "4 3",
            ])
        svg.element("text", ["x": .number(at + 22), "y": .number(y), "fill": .text(ink)], text: label)
        return y
    }
}
