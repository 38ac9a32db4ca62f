/// An app account token (Apple's `appAccountToken`): a UUID the app gives the App Store so a
/// purchase names the customer's account. Tokens compare without case.
enum AccountToken {
    /// The longest account id another store's receipt may carry, in characters (`account`).
    static let maxAccountCharacters = 256

    /// The token in lowercase when it is a UUID (`8-4-4-4-12` hexadecimal digits); `nil` else.
    static func canonical(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
            } else {
                let isHex = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
                guard isHex else { return nil }
            }
        }
        return text.lowercased()
    }
}
