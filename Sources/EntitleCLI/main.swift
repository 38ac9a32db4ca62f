import Entitle
import EntitleCommandLine
import Foundation

// The executable only connects the library's command to the process: arguments in, text out.

/// Writes to standard error; a failure there cannot be reported anywhere, so it is ignored.
@Sendable func writeError(_ text: String) {
    try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
}

/// Writes to standard output. When that fails (a closed pipe, a full disk), nothing more can be
/// delivered: say why on standard error and exit 1, as a write error, instead of trapping.
@Sendable func writeOutput(_ text: String) {
    do {
        try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    } catch {
        let failure = error as NSError
        let code = (failure.userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? (failure.domain == NSPOSIXErrorDomain ? failure.code : 0)
        let reason =
            code == Int(EPIPE)
            ? "the reader has gone (broken pipe)"
            : code != 0 ? String(cString: strerror(Int32(code))).lowercased() : "\(error)"
        writeError("entitle: cannot write to standard output: \(reason)\n")
        exit(1)
    }
}

@Sendable func showProgress(_ line: String) {
    writeError("\r\u{1B}[K" + line)
}

/// Standard input up to one byte past the limit, read in chunks, so `/dev/zero` cannot fill memory.
@Sendable func readInput() -> [UInt8] {
    let limit = CommandEnvironment.maxStandardInputBytes + 1
    var bytes: [UInt8] = []
    while bytes.count < limit {
        guard let chunk = try? FileHandle.standardInput.read(upToCount: min(1 << 20, limit - bytes.count)), !chunk.isEmpty else { break }
        bytes += chunk
    }
    return bytes
}

let environment = CommandEnvironment(
    readStandardInput: readInput,
    now: { Instant(Date()) },
    progress: isatty(STDERR_FILENO) != 0 ? showProgress : nil,
    writeStandardOutput: writeOutput)
let output = EntitleCommand.run(Array(CommandLine.arguments.dropFirst()), environment: environment)
if !output.standardOutput.isEmpty { writeOutput(output.standardOutput) }
writeError(output.standardError)
exit(output.exitCode)
