import Entitle

/// `--format csv`: answers as a table in long form, one row per customer and fact, which
/// spreadsheets, pandas and DuckDB read as they are:
///
/// ```
/// customer,at,kind,id,value,until,source
/// c-1,2026-01-15T09:00:00Z,feature,pro,true,2026-01-16T18:00:00Z,com.example.diagrams.daypass
/// c-1,2026-01-15T09:00:00Z,balance,stencils,13,,
/// c-1,2026-01-15T09:00:00Z,product,com.example.diagrams.trial,active,2026-01-15T09:00:00Z,app-store
/// c-1,2026-01-15T09:00:00Z,offer,com.example.diagrams.pro,eligible,,app-store
/// c-1,2026-01-15T09:00:00Z,reevaluate,,,2026-01-16T18:00:00Z,
/// c-1,2026-01-15T09:00:00Z,warning,unknown-product,...,,
/// ```
///
/// - `feature`: `value` `true` or `false`, `until`, `source` the covering sources separated by
///   spaces; `balance`: the balance; `product`: its state, `until`, `source` its store; `offer`:
///   `eligible` or the reason it is not, `source` its store; `reevaluate`: `until` is
///   `reevaluateAt`; `warning`: its code and message; `error`: a customer whose receipts could not
///   be read, its code and message, `source` where.
/// - Every field is text: a customer id is written as the corpus wrote it, without its JSON type.
///   Fields holding a comma, a double quote or a line break are quoted, quotes doubled (RFC 4180);
///   rows end with a line feed.
enum CSVTable {
    static let header = "customer,at,kind,id,value,until,source\n"

    /// Appends one row.
    static func row(_ fields: [String?], to text: inout String) {
        for (index, field) in fields.enumerated() {
            if index > 0 { text += "," }
            text += quoted(field ?? "")
        }
        text += "\n"
    }

    /// A field as RFC 4180 writes it: as it is, or in double quotes with quotes doubled when it
    /// holds a comma, a quote or a line break.
    static func quoted(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The rows of one answer, the parts `--fields` asks for.
    static func rows(
        _ result: Entitlements, customer: String, parts: Entitlements.JSONParts = .all, compact: Bool = false, offersOf store: Store? = nil,
        to text: inout String
    ) {
        let at = result.at.rfc3339
        func add(_ kind: String, _ id: String?, _ value: String?, _ until: String? = nil, _ source: String? = nil) {
            row([customer, at, kind, id, value, until, source], to: &text)
        }
        if parts.contains(.features) {
            for feature in result.features {
                add("feature", feature.id, feature.enabled ? "true" : "false", feature.until?.rfc3339, feature.sources.joined(separator: " "))
            }
        }
        if parts.contains(.balances) {
            for balance in result.balances { add("balance", balance.currency, String(balance.balance)) }
        }
        if parts.contains(.limits) {
            for limit in result.limits {
                add("limit", limit.id, limit.value.description, limit.until?.rfc3339, limit.sources.joined(separator: " "))
            }
        }
        if parts.contains(.products) {
            for product in result.products {
                add("product", product.id, product.state.rawValue, product.until?.rfc3339, product.store.rawValue)
            }
        }
        if parts.contains(.offers) {
            for offer in store.map(result.offers(in:)) ?? result.offers {
                add("offer", offer.productId, offer.eligible ? "eligible" : offer.reason?.rawValue, nil, offer.store.rawValue)
            }
        }
        add("reevaluate", nil, nil, result.reevaluateAt?.rfc3339)
        if parts.contains(.warnings) {
            for warning in result.warnings { add("warning", warning.code, compact ? nil : warning.message) }
        }
    }

    /// The row of a customer whose receipts could not be read.
    static func error(customer: String, _ diagnostic: Diagnostic, to text: inout String) {
        let location = diagnostic.location.map { "\($0.file):\($0.line):\($0.column)" }
        row([customer, nil, "error", diagnostic.code.rawValue, diagnostic.message, nil, location], to: &text)
    }
}
