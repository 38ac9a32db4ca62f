/// The version of entitle: the library, the `entitle` command and the formats they read and write.
///
/// Semantic versioning (the Versions article says what counts as API): a patch version fixes
/// without changing any answer that was right; a minor version adds (a key, a field, an option, a
/// case of an enumeration marked `@nonexhaustive`, a diagnostic or warning code) and breaks no
/// source that builds against an earlier one of the same major version; a major version may break.
/// Before 1.0.0, a minor version counts as a major one. `entitle --version` prints
/// ``current``.
///
/// Closed: a version is its three numbers and nothing else.
public struct LibraryVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Raised for a change that may break a user.
    public let major: Int
    /// Raised for an addition.
    public let minor: Int
    /// Raised for a fix.
    public let patch: Int

    /// This build's version.
    public static let current = LibraryVersion(major: 0, minor: 11, patch: 0)

    /// A version from its numbers.
    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// `0.9.0`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// What a change must keep from this version: the major number, or before 1.0.0 the minor
    /// one too (`0.9`).
    public var compatibility: String { major == 0 ? "0.\(minor)" : "\(major)" }

    /// Versions in order of their numbers.
    public static func < (a: LibraryVersion, b: LibraryVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }
}
