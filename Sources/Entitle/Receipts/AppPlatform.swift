/// The platform a customer first got an app on (Apple's app transaction `originalPlatform`),
/// written as Apple writes it. A watchOS app's customers are `iOS`.
@nonexhaustive
public enum AppPlatform: String, Hashable, Sendable, CaseIterable, Comparable {
    /// iPhone and iPad.
    case iOS
    /// The Mac.
    case macOS
    /// Apple TV.
    case tvOS
    /// Apple Vision Pro.
    case visionOS

    public static func < (a: AppPlatform, b: AppPlatform) -> Bool { a.rawValue < b.rawValue }
}
