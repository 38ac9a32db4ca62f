/// A problem reading Apple's data, before it is given a line and column.
struct ImportFailure: Error {
    var offset: Int
    var message: String
    var path: String = ""
    var help: String?
}
