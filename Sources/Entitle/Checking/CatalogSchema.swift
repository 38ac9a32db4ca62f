/// `schemas/catalog.schema.json`, generated from the language (``CatalogKey``): editors complete
/// and check catalogs with it, CI checks the example catalogs against it with an independent
/// validator. A test keeps the committed file equal to what this generates.
///
/// Every key's place gives a property (its value kind and limits, its help as the description);
/// each object is closed to other keys; a product allows the keys of its type. A few rules that
/// relate keys to each other are stated here too, as far as JSON Schema can say them: a trial is
/// free and named "N-day Trial" and is no upgrade, only a trial non-consumable has a duration,
/// and a grandfather rule has exactly one condition. The checker says everything else (and says
/// these better).
package enum CatalogSchema {
    /// The schema, indented, ending with a newline.
    package static var text: String { document.rendered() + "\n" }

    package static var document: JSONOutput {
        var root: [(String, JSONOutput)] = [
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string("https://github.com/entitle/entitle/schemas/catalog.schema.json")),
            ("title", .string("entitle product catalog")),
            (
                "description",
                .string(
                    "One app's in-app purchases: the features they grant, the currencies they credit, and their legal text. "
                        + "Checked and compiled by `entitle validate` and `entitle check`. Generated from the catalog language "
                        + "(Sources/Entitle/Checking/CatalogLanguage.swift); do not edit by hand.")
            ),
        ]
        root += object(.catalog)
        var definitions: [(String, JSONOutput)] = [
            ("bundleId", identifier(pattern: "^[A-Za-z0-9.-]+$", minLength: 1)),
            ("declaredId", identifier(pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$")),
            // `:` only in a Play subscription's `<product>:<basePlan>` (the checker holds the rest).
            ("productId", identifier(pattern: "^[A-Za-z0-9._-]+(:[A-Za-z0-9._-]+)?$", minLength: 1)),
            (
                "duration",
                .object([
                    ("type", .string("string")),
                    (
                        "pattern",
                        .string(
                            "^P(?!$)([0-9]{1,7}Y)?([0-9]{1,7}M)?([0-9]{1,7}W)?([0-9]{1,7}D)?(T(?=[0-9])([0-9]{1,7}H)?([0-9]{1,7}M)?([0-9]{1,7}S)?)?$")
                    ),
                    (
                        "description",
                        .string(
                            "ISO 8601 duration: PnYnMnWnD and PT..H..M..S, whole numbers, e.g. P1M, P1Y, P14D, PT12H; at most P100Y "
                                + "(a month counting as 31 days), which `entitle validate` checks.")
                    ),
                ])
            ),
        ]
        for inner in CatalogObject.allCases where inner != .catalog {
            definitions.append((inner.rawValue, .object(object(inner))))
        }
        root.append(("$defs", .object(definitions)))
        return .object(root)
    }

    /// An id: a string that matches `pattern`, at most ``CatalogLimits/maxIdentifierBytes`` long
    /// and, when given, at least `minLength`.
    private static func identifier(pattern: String, minLength: Int64? = nil) -> JSONOutput {
        .object(
            [("type", .string("string"))] + (minLength.map { [("minLength", .integer($0))] } ?? [])
                + [("pattern", .string(pattern)), ("maxLength", .integer(Int64(CatalogLimits.maxIdentifierBytes)))])
    }

    /// An object of the language: closed to other keys, its properties, its required keys, and
    /// for products the keys of each type.
    private static func object(_ object: CatalogObject) -> [(String, JSONOutput)] {
        var members: [(String, JSONOutput)] = [("type", .string("object")), ("additionalProperties", .bool(false))]
        let required = object.requiredKeys.map(\.name)
        if !required.isEmpty { members.append(("required", .array(required.map(JSONOutput.string)))) }
        members.append(("properties", .object(object.keys().map { key in (key.name, property(key.place(in: object)!)) })))
        var rules: [JSONOutput] = []
        if object == .product {
            for type in ProductType.allCases {
                var then: [(String, JSONOutput)] = [("propertyNames", .object([("enum", .array(object.keyNames(for: type).map(JSONOutput.string)))]))]
                let needed = object.keys(for: type).filter { key in
                    if case .requiredFor(let types, _)? = key.place(in: object)?.requirement { return types.contains(type) }
                    return false
                }
                if !needed.isEmpty { then.append(("required", .array(needed.map { .string($0.name) }))) }
                rules.append(
                    .object([
                        (
                            "if",
                            .object([
                                ("properties", .object([(CatalogKey.type.name, .object([("const", .string(type.rawValue))]))])),
                                ("required", .array([.string(CatalogKey.type.name)])),
                            ])
                        ),
                        ("then", .object(then)),
                    ]))
            }
            rules += productRules
        }
        if object == .grandfatherRule {
            members.append(
                (
                    "anyOf",
                    .array(
                        [CatalogKey.originalApplicationVersionBefore, .originalPurchaseBefore, .originalPlatform].map { key in
                            .object([("required", .array([.string(key.name)]))])
                        })
                ))
        }
        if !rules.isEmpty { members.append(("allOf", .array(rules))) }
        return members
    }

    /// Rules across a product's keys: a trial is free, named "N-day Trial" and no upgrade; only a
    /// trial non-consumable has a duration.
    private static var productRules: [JSONOutput] {
        [
            .object([
                ("if", .object([("required", .array([.string(CatalogKey.trialOf.name)]))])),
                (
                    "then",
                    .object([
                        ("required", .array([.string(CatalogKey.priceTier.name)])),
                        (
                            "properties",
                            .object([
                                (CatalogKey.priceTier.name, .object([("const", .integer(0))])),
                                (CatalogKey.name.name, .object([("pattern", .string("^[1-9][0-9]*-day Trial$"))])),
                            ])
                        ),
                        ("not", .object([("required", .array([.string(CatalogKey.upgrade.name)]))])),
                    ])
                ),
            ]),
            .object([
                (
                    "if",
                    .object([
                        ("properties", .object([(CatalogKey.type.name, .object([("const", .string(ProductType.nonConsumable.rawValue))]))])),
                        ("required", .array([.string(CatalogKey.type.name)])),
                        ("not", .object([("required", .array([.string(CatalogKey.trialOf.name)]))])),
                    ])
                ),
                ("then", .object([("not", .object([("required", .array([.string(CatalogKey.duration.name)]))]))])),
            ]),
        ]
    }

    /// One key's value where it appears, with its help.
    private static func property(_ place: CatalogKey.Place) -> JSONOutput {
        var members = schema(of: place.value)
        if case .flag(let value?) = place.value { members.append(("default", .bool(value))) }
        members.append(("description", .string(place.help)))
        return .object(members)
    }

    private static let nonEmptyText: [(String, JSONOutput)] = [
        ("type", .string("string")), ("minLength", .integer(1)), ("pattern", .string("\\S")),
    ]

    private static func reference(_ name: String) -> [(String, JSONOutput)] { [("$ref", .string("#/$defs/\(name)"))] }

    /// A map's names: declared ids, or `$comment`.
    private static let idsOrComment: JSONOutput = .object([
        ("anyOf", .array([.object(reference("declaredId")), .object([("const", .string(CatalogKey.comment.name))])]))
    ])

    private static let commentProperty: (String, JSONOutput) = (
        CatalogKey.comment.name,
        .object([
            ("type", .string("string")), ("description", .string(CatalogKey.comment.places[0].help)),
        ])
    )

    private static func schema(of value: CatalogValue) -> [(String, JSONOutput)] {
        switch value {
        case .comment, .schemaReference:
            return [("type", .string("string"))]
        case .text:
            return nonEmptyText
        case .name:
            return nonEmptyText + [("maxLength", .integer(Int64(CatalogLimits.maxIdentifierBytes)))]
        case .bundleId:
            return reference("bundleId")
        case .productId, .productReference:
            return reference("productId")
        case .productType:
            return [("enum", .array(ProductType.allCases.map { .string($0.rawValue) }))]
        case .choice(let values, _):
            return [("enum", .array(values.map(JSONOutput.string)))]
        case .integer(let range, _):
            var members: [(String, JSONOutput)] = [("type", .string("integer")), ("minimum", .integer(range.lowerBound))]
            if range.upperBound != .max { members.append(("maximum", .integer(range.upperBound))) }
            return members
        case .flag:
            return [("type", .string("boolean"))]
        case .duration:
            return reference("duration")
        case .instant:
            return [("type", .string("string")), ("format", .string("date-time"))]
        case .url:
            return [("type", .string("string")), ("pattern", .string("^https://\\S+$")), ("maxLength", .integer(2_048))]
        case .storefronts:
            return [
                ("type", .string("array")), ("minItems", .integer(1)), ("uniqueItems", .bool(true)),
                ("items", .object([("enum", .array(Storefront.alpha3Sorted.map(JSONOutput.string)))])),
            ]
        case .version:
            return [("type", .string("string")), ("pattern", .string("^[0-9]{1,18}(\\.[0-9]{1,18}){0,127}$"))]
        case .features, .currencyList:
            return [("type", .string("array")), ("uniqueItems", .bool(true)), ("items", .object(reference("declaredId")))]
        case .currencyReference:
            return reference("declaredId")
        case .durationOrChoice(let values, _):
            return [("anyOf", .array([.object([("enum", .array(values.map(JSONOutput.string)))]), .object(reference("duration"))]))]
        case .products:
            return [
                ("type", .string("array")), ("minItems", .integer(1)), ("uniqueItems", .bool(true)),
                ("items", .object(reference("productId"))),
            ]
        case .declarations:
            return [
                ("type", .string("object")), ("propertyNames", idsOrComment), ("additionalProperties", .object([("type", .string("string"))])),
                ("maxProperties", .integer(Int64(CatalogLimits.maxDeclarations))), ("properties", .object([commentProperty])),
            ]
        case .legalTexts:
            return [
                ("type", .string("object")), ("additionalProperties", .bool(false)),
                ("properties", .object(ProductType.allCases.map { ($0.rawValue, .object(nonEmptyText)) } + [commentProperty])),
            ]
        case .credits:
            return [
                ("type", .string("object")), ("propertyNames", idsOrComment),
                (
                    "additionalProperties",
                    .object([
                        ("type", .string("integer")), ("minimum", .integer(1)), ("maximum", .integer(CatalogLimits.maxCredit)),
                    ])
                ),
                ("properties", .object([commentProperty])),
            ]
        case .limitValues:
            return [
                ("type", .string("object")), ("propertyNames", idsOrComment),
                (
                    "additionalProperties",
                    .object([
                        (
                            "anyOf",
                            .array([
                                .object([
                                    ("type", .string("integer")), ("minimum", .integer(0)), ("maximum", .integer(CatalogLimits.maxLimitValue)),
                                ]),
                                .object([("const", .string(LimitValue.unlimited.description))]),
                            ])
                        )
                    ])
                ),
                ("properties", .object([commentProperty])),
            ]
        case .object(let inner):
            return reference(inner.rawValue)
        case .choices(let values, _):
            return [
                ("type", .string("array")), ("minItems", .integer(1)), ("uniqueItems", .bool(true)),
                ("items", .object([("enum", .array(values.map(JSONOutput.string)))])),
            ]
        case .languageTags:
            return [
                ("type", .string("array")), ("minItems", .integer(1)), ("uniqueItems", .bool(true)),
                ("items", .object([("type", .string("string")), ("pattern", .string(LanguageTag.pattern))])),
            ]
        case .choiceOrObject(let values, _, let inner):
            return [("anyOf", .array([.object([("enum", .array(values.map(JSONOutput.string)))]), .object(reference(inner.rawValue))]))]
        case .objects(let inner, let max):
            var members: [(String, JSONOutput)] = [("type", .string("array")), ("items", .object(reference(inner.rawValue)))]
            if let max { members.append(("maxItems", .integer(Int64(max)))) }
            return members
        case .keyedObjects(let inner, _, let max):
            return [
                ("type", .string("object")),
                (
                    "propertyNames",
                    .object([
                        (
                            "anyOf",
                            .array([
                                .object([
                                    ("type", .string("string")), ("pattern", .string("^\\S+$")),
                                    ("maxLength", .integer(Int64(CatalogLimits.maxIdentifierBytes))),
                                ]),
                                .object([("const", .string(CatalogKey.comment.name))]),
                            ])
                        )
                    ])
                ),
                ("additionalProperties", .object(reference(inner.rawValue))), ("minProperties", .integer(1)),
                ("maxProperties", .integer(Int64(max))), ("properties", .object([commentProperty])),
            ]
        }
    }
}
