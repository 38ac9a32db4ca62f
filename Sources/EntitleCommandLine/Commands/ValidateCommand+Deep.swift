import Entitle

/// `validate --deep [--depth N]`: a review of the portfolio by search (``CatalogProof``), its
/// findings as warnings located in the catalogs, in every format `validate` prints.
extension ValidateCommand {
    /// The review's warnings and a line saying what was searched; `nil` without `--deep`.
    ///
    /// - Throws: ``UsageError`` for `--depth` without `--deep`, or a depth out of range.
    static func deepReview(_ arguments: ParsedArguments, compiled: CatalogArguments.Compiled, environment: CommandEnvironment) throws(UsageError)
        -> (diagnostics: [Diagnostic], summary: String)?
    {
        guard arguments.contains(ProveOptions.deep) else {
            if arguments.contains(ProveOptions.depth) {
                throw UsageError(message: "`\(ProveOptions.depth.name)` is for `\(ProveOptions.deep.name)`")
            }
            if arguments.contains(ProveOptions.timeLimit) {
                throw UsageError(message: "`\(ProveOptions.timeLimit.name)` is for `\(ProveOptions.deep.name)`")
            }
            return nil
        }
        let options = try ProveOptions.options(arguments)
        guard let portfolio = compiled.compilation.portfolio, compiled.unreadable.isEmpty else {
            return ([], "entitle: \(ProveOptions.deep.name): the catalogs have errors, so no customer was searched\n")
        }
        let line = ProveOptions.progress("entitle validate --deep", environment: environment)
        let review = CatalogProof.review(portfolio, sources: compiled.sources, options: options, progress: line?.callback)
        line?.finish()
        return (review.diagnostics, "entitle: \(ProveOptions.deep.name): \(review.searched)\n")
    }
}
