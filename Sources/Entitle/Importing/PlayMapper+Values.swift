/// Values read alike for every Play resource: acknowledgement, account and storefront, the
/// environment, quantities and times.
extension PlayMapper {
    // MARK: Values

    /// Acknowledgement, account and storefront, read alike for every resource.
    mutating func common(_ node: JSONNode, path: String) throws(ImportFailure) -> (acknowledged: Bool?, account: String?, storefront: String?) {
        func join(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        // Only `false` is written: an acknowledged purchase is like one that never needed it.
        var acknowledged: Bool?
        if let state = node["acknowledgementState"], ["ACKNOWLEDGEMENT_STATE_PENDING", "0"].contains(state.lenientString ?? "") {
            acknowledged = false
        }
        let identifiers = node["externalAccountIdentifiers"]
        let account = [identifiers?["obfuscatedExternalAccountId"], identifiers?["externalAccountId"], node["obfuscatedExternalAccountId"]]
            .lazy.compactMap { $0?.lenientString }.first { !$0.isEmpty }
        var storefront: String?
        if let region = node["regionCode"]?.lenientString {
            if let code = Storefront.alpha3(region) {
                storefront = code
            } else {
                warnings.append(
                    ImportWarning(path: join("regionCode"), message: "`\(Diagnostic.excerpt(region))` is not an ISO 3166-1 region; no storefront"))
            }
        }
        return (acknowledged, account, storefront)
    }

    mutating func noteEnvironment(test: Bool) {
        if test { environment = "sandbox" } else if environment == nil { environment = "production" }
    }

    /// A quantity of 1 to 1,000,000 (absent: 1).
    static func quantity(_ node: JSONNode?, path: String) throws(ImportFailure) -> Int64 {
        guard let node, !node.isNull else { return 1 }
        guard let value = node.lenientInteger, (1...1_000_000).contains(value) else {
            throw ImportFailure(offset: node.offset, message: "a quantity must be a whole number from 1 to 1000000", path: path)
        }
        return value
    }

    /// Milliseconds since 1970, as Play's v1 resources and notifications write them: never
    /// negative.
    static func milliseconds(_ node: JSONNode, _ key: String, path: String) throws(ImportFailure) -> Instant {
        let instant = try node.instant(key: key, path: path)
        guard instant.millisecondsSince1970 >= 0 else {
            throw ImportFailure(offset: node.offset, message: "`\(key)` \(instant.millisecondsSince1970) is negative", path: path)
        }
        return instant
    }

    /// An RFC 3339 time (Play's v2 resources write nanoseconds; past milliseconds are dropped).
    static func time(_ node: JSONNode, _ key: String, path: String) throws(ImportFailure) -> Instant? {
        guard let value = node[key], !value.isNull else { return nil }
        let memberPath = path.isEmpty ? key : "\(path).\(key)"
        guard case .string(let text) = value.value, let instant = Instant(rfc3339: text) else {
            throw ImportFailure(
                offset: value.offset, message: "`\(key)` is not an RFC 3339 time within years 0001-9999", path: memberPath,
                help: "Play's v2 resources write times such as 2026-11-27T10:00:00.123Z")
        }
        return instant
    }
}
