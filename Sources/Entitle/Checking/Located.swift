/// A checked value with where it came from, kept so later checks can still point at it.
struct Located<Value> {
    var value: Value
    /// Byte offset of the value in its file.
    var offset: Int
    /// JSON path of the value, such as `products[2].name`.
    var path: String
}
