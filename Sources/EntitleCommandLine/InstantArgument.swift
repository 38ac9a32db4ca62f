import Entitle

/// The `--at` option: an RFC 3339 instant, or a date alone meaning its midnight UTC.
enum InstantArgument {
    /// Parses the value of `option`.
    ///
    /// - Throws: ``UsageError`` saying what is wrong with the value (a day that does not exist,
    ///   an hour past 23, the wrong shape).
    static func parse(_ text: String, option: String = "--at") throws(UsageError) -> Instant {
        if let instant = Instant(rfc3339: text) { return instant }
        // `2026-03-08` alone: midnight UTC that day.
        if text.utf8.count == 10, let instant = Instant(rfc3339: text + "T00:00:00Z") { return instant }
        var problem = Instant.rfc3339Problem(text.utf8.count == 10 ? text + "T00:00:00Z" : text)
            ?? "it must look like `2026-01-15T09:00:00Z` or `2026-01-15`"
        // The shape message speaks of catalogs' instants; on the command line a date alone works too.
        if problem.hasPrefix("it must look like `2026-01-15T09:00:00Z` (") {
            problem = "it must look like `2026-01-15T09:00:00Z` (RFC 3339, `Z` or an offset such as `+01:00`) or a date alone, `2026-01-15` (midnight UTC)"
        }
        throw UsageError(message: "`\(option) \(text)`: \(problem)")
    }
}
