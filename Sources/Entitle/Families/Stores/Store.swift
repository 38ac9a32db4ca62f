/// Where a product is sold, and where a receipt comes from: the App Store, Google Play, Stripe
/// (a web checkout), or any other checkout a service records itself.
///
/// A store is a dimension, not a rule family: its importer maps the store's facts into the
/// normalized receipt, and evaluation reads only normalized facts. A product's id is unique within
/// its store; outside the App Store it is written with its store, `<store>:<id>` (its
/// ``CatalogProduct/key``): `play:pro:yearly`, `stripe:prod_Pro`. App Store products keep their bare
/// id, so an App Store-only catalog reads as it always did.
@nonexhaustive
public enum Store: String, CaseIterable, Hashable, Sendable, Codable {
    /// Apple's App Store (the default).
    case appStore = "app-store"
    /// Google Play.
    case play
    /// Stripe: a web checkout.
    case stripe
    /// Any other checkout a service records itself (Paddle, its own).
    case external

    /// The store in a sentence: "the App Store", "Google Play", "Stripe", "the checkout".
    public var phrase: String {
        switch self {
        case .appStore: "the App Store"
        case .play: "Google Play"
        case .stripe: "Stripe"
        case .external: "the checkout"
        }
    }

    /// A product's key: its id, prefixed with its store outside the App Store (`stripe:prod_Pro`).
    public func key(of id: String) -> String { self == .appStore ? id : rawValue + ":" + id }

    /// The store and id a key names: `stripe:prod_Pro` is Stripe's `prod_Pro`, a key without a
    /// store prefix an App Store id (whose ids hold no `:`).
    public static func split(key: String) -> (store: Store, id: String) {
        if let colon = key.firstIndex(of: ":"), let store = Store(rawValue: String(key[..<colon])), store != .appStore {
            return (store, String(key[key.index(after: colon)...]))
        }
        return (.appStore, key)
    }

    /// The product keys of a store's receipts start with this (nothing for the App Store); made
    /// once, since evaluation reads it for every transaction.
    var keyPrefix: [UInt8] { Store.keyPrefixes[Int(index)] }

    /// The store's position in ``allCases``.
    private var index: UInt8 {
        switch self {
        case .appStore: 0
        case .play: 1
        case .stripe: 2
        case .external: 3
        }
    }

    private static let keyPrefixes: [[UInt8]] = allCases.map { $0 == .appStore ? [] : Array(($0.rawValue + ":").utf8) }

    /// Where a customer of this store manages a subscription of `productId` in `app`, when the
    /// store says: the App Store's and Play's subscription pages; Stripe and other checkouts have
    /// the catalog's `stores` URL instead (`nil` here).
    public func manageURL(productId: String, app: String) -> String? {
        switch self {
        case .appStore: "https://apps.apple.com/account/subscriptions"
        case .play:
            // A Play subscription's id is `<productId>:<basePlanId>`; the page takes the product.
            "https://play.google.com/store/account/subscriptions?sku=\(Self.queryEscaped(String(productId.prefix { $0 != ":" })))&package=\(Self.queryEscaped(app))"
        case .stripe, .external: nil
        }
    }

    /// A URL query value: every byte but unreserved characters percent-encoded.
    static func queryEscaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return result
    }
}
