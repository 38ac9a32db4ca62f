/// A problem reading Apple's data, before it is given a line and column.
struct ImportFailure: Error {
    var offset: Int
    var message: String
    var path: String = ""
    var help: String?
}

/// What the caller says about the app of Apple data.
package struct AppOption: Sendable {
    /// The app to use for data that names none.
    package var app: String?
    /// Whether data naming another app is an error (`normalize --app`, the library's `app:`);
    /// otherwise such data stays the receipt of the app it names (`check --app`).
    package var strict: Bool
    /// For data that names no app and without ``app``: the app, given the product ids the data
    /// names (the one app of a portfolio whose catalog sells them), or `nil`.
    package var byProducts: (@Sendable ([String]) -> String?)?

    package init(app: String?, strict: Bool, byProducts: (@Sendable ([String]) -> String?)? = nil) {
        self.app = app
        self.strict = strict
        self.byProducts = byProducts
    }

    package static let none = AppOption(app: nil, strict: false)

    /// The app of the receipt: the one the data names (checked against the option when strict),
    /// else the option.
    func resolve(named: String?, at offset: Int, path: String) throws(ImportFailure) -> String? {
        guard let named, !named.isEmpty else { return app }
        if strict, let app, app != named {
            throw ImportFailure(
                offset: offset, message: "the data is for app `\(named)`, not `\(app)`", path: path,
                help: "the app option only names the app of data that names none; a receipt of one app never counts for another")
        }
        return named
    }

    /// The app of data that names `apps` (each where it is named, in order): the one it names,
    /// resolved as ``resolve(named:at:path:)`` does, or the option's when it names none.
    ///
    /// - Throws: ``ImportFailure`` at the second app named, for data of several apps; with
    ///   `missing` and `help` for data that names none when the option gives none either.
    func resolve(apps: [(app: String, offset: Int)], path: String, missing: String, help: String) throws(ImportFailure) -> String {
        var distinct: [(app: String, offset: Int)] = []
        for named in apps where !distinct.contains(where: { $0.app == named.app }) { distinct.append(named) }
        if distinct.count > 1 {
            throw ImportFailure(
                offset: distinct[1].offset,
                message: "the data is for several apps: \(CatalogChecker.list(distinct.map(\.app), conjunction: "and"))",
                help: "normalize each app's data separately")
        }
        guard let resolved = try resolve(named: distinct.first?.app, at: distinct.first?.offset ?? 0, path: path) else {
            throw ImportFailure(offset: 0, message: missing, help: help)
        }
        return resolved
    }
}
