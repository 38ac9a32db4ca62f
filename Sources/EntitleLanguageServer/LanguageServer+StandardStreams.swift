import Foundation

extension LanguageServer {
    /// Serves on standard input and output until the editor sends `exit` or closes the input.
    ///
    /// - Parameter version: the version of entitle, which `initialize` answers with.
    /// - Returns: the exit code: 0 after the editor's `shutdown` and `exit`, 1 otherwise.
    package static func serveStandardStreams(version: String) -> Int32 {
        // A client that goes away must end the server with an error from `write`, not a signal.
        signal(SIGPIPE, SIG_IGN)
        var server = LanguageServer(
            version: version, read: reader(FileHandle.standardInput),
            write: { data in
                try FileHandle.standardOutput.write(contentsOf: data)
            })
        return server.run()
    }

    /// Reads what a file handle has now, blocking until it has something: one `read(2)`, where
    /// `FileHandle.read(upToCount:)` would wait for the whole count.
    static func reader(_ handle: FileHandle) -> () throws -> Data? {
        let descriptor = handle.fileDescriptor
        return {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 { return Data(buffer[0..<count]) }
                if count == 0 { return nil }
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
        }
    }
}
