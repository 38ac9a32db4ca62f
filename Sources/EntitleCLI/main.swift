import EntitleCommandLine
import Entitle
import Foundation

// The executable only connects the library's command to the process: arguments in, text out.
let environment = CommandEnvironment(
    readStandardInput: { Array(FileHandle.standardInput.readDataToEndOfFile()) },
    now: { Instant(Date()) })
let output = EntitleCommand.run(Array(CommandLine.arguments.dropFirst()), environment: environment)
FileHandle.standardOutput.write(Data(output.standardOutput.utf8))
FileHandle.standardError.write(Data(output.standardError.utf8))
exit(output.exitCode)
