extension Explanation {
    /// The customer's timeline as an SVG picture: one row per feature, a lane per source that
    /// covered it or has something to show, with bars where it covers (a color per source;
    /// grace periods and billing retry striped), marks for purchases, refunds and later-signed
    /// snapshots, a dashed line at the instant explained, and a legend.
    ///
    /// Drawn from the explanation alone, so from the evaluator's decisions. Well-formed XML with
    /// no scripts, links or external fonts, every name from catalogs and receipts escaped, and of
    /// bounded size whatever the input (what is left out is said under the legend): a browser or
    /// GitHub shows it as it is.
    public var svg: String { TimelineSVG(self).rendered }

    /// One feature's row of the timeline (``svg``), or `nil` for a feature the catalog does not
    /// declare.
    public func svg(feature id: String) -> String? {
        feature(id).map { TimelineSVG(self, features: [$0]).rendered }
    }

    /// The timeline of one product: the rows of the features it can grant, with its lane only;
    /// `nil` for a product the explanation has no state for (a consumable, or one the catalog
    /// does not define).
    public func svg(product id: String) -> String? {
        guard product(id) != nil else { return nil }
        return TimelineSVG(self, features: features.filter { $0.sources.contains { $0.id == id } }, product: id).rendered
    }
}
