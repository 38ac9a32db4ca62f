/// The consumption-request family's catalog keys: `refundPreference` (on the catalog, as the
/// default, and on a product), either a preference or thresholds on the share consumed.
extension CatalogChecker {
    /// Reads a `refundPreference` value at `path`; `nil`, reported, when it is neither a known
    /// preference nor valid thresholds.
    mutating func refundPolicy(_ node: JSONNode, path: String) -> Located<RefundPolicy>? {
        if case .string = node.value {
            guard let name = choice(node, path: path, RefundPreference.names, what: "refund preference"),
                let preference = RefundPreference(rawValue: name.value)
            else { return nil }
            return Located(value: .always(preference), offset: node.offset, path: path)
        }
        guard case .object = node.value else {
            wrongType(node, expected: "a refund preference (\(Self.list(RefundPreference.names))) or a refund thresholds object", path: path)
            return nil
        }
        guard let members = object(node, .refundThresholds, path: path) else { return nil }
        func percentage(_ key: CatalogKey) -> Located<Int64>? {
            guard let member = members[key.name] else { return nil }
            return scalar(member, key, in: .refundThresholds, path: Self.path(path, key: key.name))?.integer
        }
        guard let full = percentage(.grantFullBelow), let prorated = percentage(.grantProratedBelow) else { return nil }
        guard full.value <= prorated.value else {
            report(
                .badValue, "`\(CatalogKey.grantProratedBelow.name)` (\(prorated.value)) is below `\(CatalogKey.grantFullBelow.name)` (\(full.value))",
                at: prorated.offset, path: prorated.path,
                help: "below grantFullBelow a full refund, then prorated below grantProratedBelow: it must be at least grantFullBelow")
            return nil
        }
        return Located(value: .thresholds(fullBelow: Int(full.value), proratedBelow: Int(prorated.value)), offset: node.offset, path: path)
    }
}
