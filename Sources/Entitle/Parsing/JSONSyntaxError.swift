/// A JSON text that could not be read, with the byte offset where reading stopped.
///
/// Callers turn the offset into a `line:column` location with ``LineTable``.
package struct JSONSyntaxError: Error, Sendable, Equatable {
    /// Byte offset into the text.
    package var offset: Int
    /// Lowercase description, no trailing period.
    package var message: String
    /// Advice for a mistake people make, such as a pasted curly quote or a comment.
    package var help: String? = nil
}
