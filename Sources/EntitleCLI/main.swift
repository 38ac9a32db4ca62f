import EntitleCommandLine
import Entitle
import Foundation

// The executable only connects the library's command to the process: arguments in, text out.
@Sendable func showProgress(_ line: String) {
    FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
}
let environment = CommandEnvironment(
    readStandardInput: { Array(FileHandle.standardInput.readDataToEndOfFile()) },
    now: { Instant(Date()) },
    progress: isatty(STDERR_FILENO) != 0 ? showProgress : nil,
    writeStandardOutput: { text in FileHandle.standardOutput.write(Data(text.utf8)) })
let output = EntitleCommand.run(Array(CommandLine.arguments.dropFirst()), environment: environment)
FileHandle.standardOutput.write(Data(output.standardOutput.utf8))
FileHandle.standardError.write(Data(output.standardError.utf8))
exit(output.exitCode)
