/// A proof as JSON: what was searched, and every part of every app's answer with its verdict and
/// witnesses (each with its receipts as normalized receipt JSON).
extension ProofReport {
    /// The report as one JSON object, as `entitle diff --prove --format json` prints it under
    /// `proof`.
    public var json: String { jsonOutput.rendered() + "\n" }

    /// `{"depth", "searched", "receipts", "evaluations", "combinations", "cutWalks",
    /// "unsearchedCombinations", "stoppedAtDepth", "complete", "loss",
    /// "items": [{"app", "kind", "id", "product"?, "verdict", "unchanged", "witnesses": [{"direction", "at",
    /// "old", "new", "loss", "transactions", "customer", "receipts"}]}]}`.
    package var jsonOutput: JSONOutput {
        .object([
            ("depth", .integer(Int64(depth))),
            ("searched", .string(searched)),
            ("receipts", .integer(Int64(statistics.customers))),
            ("evaluations", .integer(Int64(statistics.evaluations))),
            ("combinations", .integer(Int64(statistics.combinations))),
            ("cutWalks", .integer(Int64(statistics.cutWalks))),
            ("unsearchedCombinations", .integer(Int64(statistics.unsearchedCombinations))),
            ("stoppedAtDepth", statistics.stoppedAtDepth.map { .integer(Int64($0)) } ?? .null),
            ("complete", .bool(statistics.isComplete)),
            ("loss", .bool(showsLoss)),
            (
                "items",
                .array(
                    items.map { item in
                        var members: [(String, JSONOutput)] = [
                            ("app", .string(item.item.app)), ("kind", .string(item.item.kind.rawValue)), ("id", .string(item.item.id)),
                        ]
                        if let product = item.item.product { members.append(("product", .string(product))) }
                        members.append(("verdict", .string(item.verdict.rawValue)))
                        members.append(("unchanged", .bool(item.unchanged)))
                        members.append(
                            (
                                "witnesses",
                                .array(
                                    item.witnesses.map { witness in
                                        .object([
                                            ("direction", .string(witness.direction.rawValue)), ("at", .string(witness.at.rfc3339)),
                                            ("old", .string(witness.old)), ("new", .string(witness.new)),
                                            ("loss", .bool(ItemValue.isLoss(item.item.kind, witness.direction))),
                                            ("transactions", .integer(Int64(witness.transactions))),
                                            ("customer", .array(witness.customer.map(JSONOutput.string))),
                                            ("receipts", .array(witness.receipts.map(\.jsonOutput))),
                                        ])
                                    })
                            ))
                        return .object(members)
                    })
            ),
        ])
    }
}
