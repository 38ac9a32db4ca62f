/// A storefront: a country a product may be offered in, as Apple writes it in a transaction's
/// `storefront` (ISO 3166-1 alpha-3, `USA`), and as Google Play's `regionCode` writes it (alpha-2,
/// `US`).
///
/// Made only from a code that is one (``init(_:)`` throws otherwise), so an evaluation never
/// holds a storefront it silently reads as none.
public struct Storefront: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The ISO 3166-1 alpha-3 code, upper case (`USA`).
    public let code: String

    /// The storefront of an ISO 3166-1 code written either way, in any case (`us`, `USA`).
    ///
    /// - Throws: ``EvaluationOptions/InvalidValue`` naming the closest code when `code` is neither
    ///   an alpha-2 nor an alpha-3 code.
    public init(_ code: String) throws(EvaluationOptions.InvalidValue) {
        guard let alpha3 = Self.alpha3(code) else {
            let upper = code.uppercased()
            throw EvaluationOptions.InvalidValue(
                option: "storefront", value: code,
                problem: "`\(Diagnostic.excerpt(code))` is not an ISO 3166-1 storefront (alpha-3 `USA` or alpha-2 `US`)",
                help: Suggestion.help(for: upper, in: upper.utf8.count == 2 ? Self.codes.map(\.alpha2) : Self.alpha3Sorted))
        }
        self.code = alpha3
    }

    /// The alpha-3 code.
    public var description: String { code }

    /// Storefronts in the order of their codes.
    public static func < (a: Storefront, b: Storefront) -> Bool { a.code < b.code }

    /// Every officially assigned ISO 3166-1 code: (alpha-2, alpha-3), by alpha-2.
    static let codes: [(alpha2: String, alpha3: String)] = [
        ("AF", "AFG"), ("AX", "ALA"), ("AL", "ALB"), ("DZ", "DZA"), ("AS", "ASM"), ("AD", "AND"), ("AO", "AGO"), ("AI", "AIA"),
        ("AQ", "ATA"), ("AG", "ATG"), ("AR", "ARG"), ("AM", "ARM"), ("AW", "ABW"), ("AU", "AUS"), ("AT", "AUT"), ("AZ", "AZE"),
        ("BS", "BHS"), ("BH", "BHR"), ("BD", "BGD"), ("BB", "BRB"), ("BY", "BLR"), ("BE", "BEL"), ("BZ", "BLZ"), ("BJ", "BEN"),
        ("BM", "BMU"), ("BT", "BTN"), ("BO", "BOL"), ("BQ", "BES"), ("BA", "BIH"), ("BW", "BWA"), ("BV", "BVT"), ("BR", "BRA"),
        ("IO", "IOT"), ("BN", "BRN"), ("BG", "BGR"), ("BF", "BFA"), ("BI", "BDI"), ("CV", "CPV"), ("KH", "KHM"), ("CM", "CMR"),
        ("CA", "CAN"), ("KY", "CYM"), ("CF", "CAF"), ("TD", "TCD"), ("CL", "CHL"), ("CN", "CHN"), ("CX", "CXR"), ("CC", "CCK"),
        ("CO", "COL"), ("KM", "COM"), ("CG", "COG"), ("CD", "COD"), ("CK", "COK"), ("CR", "CRI"), ("CI", "CIV"), ("HR", "HRV"),
        ("CU", "CUB"), ("CW", "CUW"), ("CY", "CYP"), ("CZ", "CZE"), ("DK", "DNK"), ("DJ", "DJI"), ("DM", "DMA"), ("DO", "DOM"),
        ("EC", "ECU"), ("EG", "EGY"), ("SV", "SLV"), ("GQ", "GNQ"), ("ER", "ERI"), ("EE", "EST"), ("SZ", "SWZ"), ("ET", "ETH"),
        ("FK", "FLK"), ("FO", "FRO"), ("FJ", "FJI"), ("FI", "FIN"), ("FR", "FRA"), ("GF", "GUF"), ("PF", "PYF"), ("TF", "ATF"),
        ("GA", "GAB"), ("GM", "GMB"), ("GE", "GEO"), ("DE", "DEU"), ("GH", "GHA"), ("GI", "GIB"), ("GR", "GRC"), ("GL", "GRL"),
        ("GD", "GRD"), ("GP", "GLP"), ("GU", "GUM"), ("GT", "GTM"), ("GG", "GGY"), ("GN", "GIN"), ("GW", "GNB"), ("GY", "GUY"),
        ("HT", "HTI"), ("HM", "HMD"), ("VA", "VAT"), ("HN", "HND"), ("HK", "HKG"), ("HU", "HUN"), ("IS", "ISL"), ("IN", "IND"),
        ("ID", "IDN"), ("IR", "IRN"), ("IQ", "IRQ"), ("IE", "IRL"), ("IM", "IMN"), ("IL", "ISR"), ("IT", "ITA"), ("JM", "JAM"),
        ("JP", "JPN"), ("JE", "JEY"), ("JO", "JOR"), ("KZ", "KAZ"), ("KE", "KEN"), ("KI", "KIR"), ("KP", "PRK"), ("KR", "KOR"),
        ("KW", "KWT"), ("KG", "KGZ"), ("LA", "LAO"), ("LV", "LVA"), ("LB", "LBN"), ("LS", "LSO"), ("LR", "LBR"), ("LY", "LBY"),
        ("LI", "LIE"), ("LT", "LTU"), ("LU", "LUX"), ("MO", "MAC"), ("MG", "MDG"), ("MW", "MWI"), ("MY", "MYS"), ("MV", "MDV"),
        ("ML", "MLI"), ("MT", "MLT"), ("MH", "MHL"), ("MQ", "MTQ"), ("MR", "MRT"), ("MU", "MUS"), ("YT", "MYT"), ("MX", "MEX"),
        ("FM", "FSM"), ("MD", "MDA"), ("MC", "MCO"), ("MN", "MNG"), ("ME", "MNE"), ("MS", "MSR"), ("MA", "MAR"), ("MZ", "MOZ"),
        ("MM", "MMR"), ("NA", "NAM"), ("NR", "NRU"), ("NP", "NPL"), ("NL", "NLD"), ("NC", "NCL"), ("NZ", "NZL"), ("NI", "NIC"),
        ("NE", "NER"), ("NG", "NGA"), ("NU", "NIU"), ("NF", "NFK"), ("MK", "MKD"), ("MP", "MNP"), ("NO", "NOR"), ("OM", "OMN"),
        ("PK", "PAK"), ("PW", "PLW"), ("PS", "PSE"), ("PA", "PAN"), ("PG", "PNG"), ("PY", "PRY"), ("PE", "PER"), ("PH", "PHL"),
        ("PN", "PCN"), ("PL", "POL"), ("PT", "PRT"), ("PR", "PRI"), ("QA", "QAT"), ("RE", "REU"), ("RO", "ROU"), ("RU", "RUS"),
        ("RW", "RWA"), ("BL", "BLM"), ("SH", "SHN"), ("KN", "KNA"), ("LC", "LCA"), ("MF", "MAF"), ("PM", "SPM"), ("VC", "VCT"),
        ("WS", "WSM"), ("SM", "SMR"), ("ST", "STP"), ("SA", "SAU"), ("SN", "SEN"), ("RS", "SRB"), ("SC", "SYC"), ("SL", "SLE"),
        ("SG", "SGP"), ("SX", "SXM"), ("SK", "SVK"), ("SI", "SVN"), ("SB", "SLB"), ("SO", "SOM"), ("ZA", "ZAF"), ("GS", "SGS"),
        ("SS", "SSD"), ("ES", "ESP"), ("LK", "LKA"), ("SD", "SDN"), ("SR", "SUR"), ("SJ", "SJM"), ("SE", "SWE"), ("CH", "CHE"),
        ("SY", "SYR"), ("TW", "TWN"), ("TJ", "TJK"), ("TZ", "TZA"), ("TH", "THA"), ("TL", "TLS"), ("TG", "TGO"), ("TK", "TKL"),
        ("TO", "TON"), ("TT", "TTO"), ("TN", "TUN"), ("TR", "TUR"), ("TM", "TKM"), ("TC", "TCA"), ("TV", "TUV"), ("UG", "UGA"),
        ("UA", "UKR"), ("AE", "ARE"), ("GB", "GBR"), ("US", "USA"), ("UM", "UMI"), ("UY", "URY"), ("UZ", "UZB"), ("VU", "VUT"),
        ("VE", "VEN"), ("VN", "VNM"), ("VG", "VGB"), ("VI", "VIR"), ("WF", "WLF"), ("EH", "ESH"), ("YE", "YEM"), ("ZM", "ZMB"),
        ("ZW", "ZWE"),
    ]

    /// Alpha-3 codes by alpha-2.
    private static let byAlpha2: [String: String] = Dictionary(uniqueKeysWithValues: codes.map { ($0.alpha2, $0.alpha3) })
    /// Every alpha-3 code.
    static let alpha3: Set<String> = Set(codes.map(\.alpha3))
    /// Every alpha-3 code, sorted, for suggestions and the schema.
    static let alpha3Sorted: [String] = alpha3.sorted()

    /// Whether `code` is an ISO 3166-1 alpha-3 code, upper case (`USA`).
    public static func isAlpha3(_ code: String) -> Bool { alpha3.contains(code) }

    /// The alpha-3 code of a storefront written either way, in any case (`us`, `USA`); `nil` when
    /// it is neither.
    public static func alpha3(_ code: String) -> String? {
        let upper = code.uppercased()
        switch upper.utf8.count {
        case 2: return byAlpha2[upper]
        case 3: return alpha3.contains(upper) ? upper : nil
        default: return nil
        }
    }
}
