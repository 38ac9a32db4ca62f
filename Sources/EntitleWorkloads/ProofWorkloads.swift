/// Fixed catalogs the proof benchmark and the tests both search.
public enum ProofWorkloads {
    /// A subscription catalog of seven products: two levels of one subscription group (Plus above
    /// Pro monthly and yearly), the monthly plan with an intro offer, a win-back and a promotional
    /// offer; a lifetime non-consumable with a trial and an upgrade from another app; a consumable.
    /// `entitle-bench --prove fixed` proves a change to its promotional offer; the tests search its
    /// subscription group.
    public static let sevenProducts = """
        {
          "app": "com.example.notes",
          "features": { "pro": "Unlimited notes and all templates", "sync": "Sync across devices", "plus": "Shared notebooks" },
          "currencies": { "exports": "Print-quality exports" },
          "legal": { "auto-renewable-subscription": "Renews automatically until canceled at least 24 hours before the period ends." },
          "products": [
            {
              "id": "com.example.notes.pro.monthly", "type": "auto-renewable-subscription", "name": "Notes Pro Monthly",
              "group": "notes", "level": 2, "duration": "P1M",
              "introOffer": { "mode": "free-trial", "duration": "P1W" },
              "offers": [
                { "id": "pro.winback", "type": "win-back", "mode": "free-trial", "duration": "P1M",
                  "paidAtLeast": "P3M", "lapsedAtLeast": "P1M", "lapsedAtMost": "P1Y", "waitBetween": "P6M" },
                { "id": "pro.loyal", "type": "promotional", "mode": "pay-as-you-go", "duration": "P1M", "periods": 3,
                  "subscribed": true, "paidAtLeast": "P2M", "waitBetween": "P1Y" }
              ],
              "grants": ["pro", "sync"]
            },
            {
              "id": "com.example.notes.pro.yearly", "type": "auto-renewable-subscription", "name": "Notes Pro Yearly",
              "group": "notes", "level": 2, "duration": "P1Y", "grants": ["pro", "sync"]
            },
            {
              "id": "com.example.notes.plus.monthly", "type": "auto-renewable-subscription", "name": "Notes Plus Monthly",
              "group": "notes", "level": 1, "duration": "P1M", "grants": ["pro", "sync", "plus"]
            },
            { "id": "com.example.notes.lifetime", "type": "non-consumable", "name": "Notes Pro Lifetime", "grants": ["pro"] },
            {
              "id": "com.example.notes.lifetime.trial", "type": "non-consumable", "name": "7-day Trial", "priceTier": 0,
              "trialOf": "com.example.notes.lifetime", "grants": ["pro"]
            },
            {
              "id": "com.example.notes.lifetime.upgrade", "type": "non-consumable", "name": "Lifetime upgrade from Notes Classic",
              "upgrade": {
                "replaces": "com.example.notes.lifetime",
                "requires": { "app": "com.example.notes.classic", "anyOf": ["com.example.notes.classic.pro"] }
              },
              "grants": ["pro"]
            },
            { "id": "com.example.notes.exports.10", "type": "consumable", "name": "10 Exports", "credits": { "exports": 10 } }
          ]
        }
        """
}
