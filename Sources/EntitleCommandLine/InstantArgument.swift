import Entitle

/// The `--at` option: an RFC 3339 instant, or a date alone meaning its midnight UTC.
enum InstantArgument {
    /// Parses the value of `option`.
    ///
    /// - Throws: ``UsageError`` saying what is wrong with the value (a day that does not exist,
    ///   an hour past 23, the wrong shape).
    static func parse(_ text: String, option: String = "--at") throws(UsageError) -> Instant {
        do {
            return try Instant.parse(text)
        } catch {
            throw UsageError(message: "`\(option) \(text)`: \(error.problem)")
        }
    }
}
