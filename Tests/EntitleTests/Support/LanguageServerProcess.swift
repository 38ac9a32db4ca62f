import Foundation
import Testing

@testable import Entitle
@testable import EntitleLanguageServer

/// The built `entitle` executable running `entitle lsp`, driven as an editor would: framed
/// JSON-RPC messages written to its standard input, its messages read from its standard output
/// with a timeout, so a server that hangs fails the test instead of stalling the suite.
final class LanguageServerProcess: @unchecked Sendable {
    /// The `entitle` executable `swift test` built: beside the test runner, else in `.build/debug`.
    static var executable: URL? {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["ENTITLE_EXECUTABLE"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path))
        }
        for runner in [Bundle.main.executableURL, CommandLine.arguments.first.map { URL(fileURLWithPath: $0) }] {
            guard let runner else { continue }
            // Linux: `.build/<triple>/debug/entitlePackageTests.xctest`; macOS: the runner
            // is inside `entitlePackageTests.xctest/Contents/MacOS`.
            var directory = runner.deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent("entitle"))
                directory = directory.deletingLastPathComponent()
            }
        }
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("entitle"))
        }
        candidates.append(Fixtures.packageRoot.appendingPathComponent(".build/debug/entitle"))
        return candidates.first { url in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && FileManager.default.isExecutableFile(atPath: url.path)
        }
    }

    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let condition = NSCondition()
    private var buffer: [UInt8] = []
    private var outputClosed = false

    init(executable: URL) throws {
        process.executableURL = executable
        process.arguments = ["lsp"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = output.fileHandleForReading
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty { outputClosed = true } else { buffer.append(contentsOf: data) }
                condition.broadcast()
                condition.unlock()
                if data.isEmpty { return }
            }
        }
        thread.start()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Writes raw bytes to the server's standard input.
    func write(_ bytes: Data) {
        try? input.fileHandleForWriting.write(contentsOf: bytes)
    }

    /// Writes one message with its `Content-Length` header.
    func send(_ json: String) {
        write(MessageFraming.frame(json))
    }

    /// Sends a request built from a method and params JSON.
    func request(_ id: Int, _ method: String, _ params: String = "{}") {
        send(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#)
    }

    /// Sends a notification.
    func notify(_ method: String, _ params: String = "{}") {
        send(#"{"jsonrpc":"2.0","method":"\#(method)","params":\#(params)}"#)
    }

    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// The next message from the server, or `nil` when none comes within `timeout` seconds (or
    /// its output ends).
    func next(timeout: TimeInterval = 15) -> JSONNode? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let message = takeMessage() { return message }
            if outputClosed { return nil }
            if !condition.wait(until: deadline) { return takeMessage() }
        }
    }

    /// The response to request `id`, skipping notifications before it.
    func response(_ id: Int, timeout: TimeInterval = 15) -> JSONNode? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while let message = next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            if message.member("id")?.integerValue == Int64(id), message.member("method") == nil { return message }
        }
        return nil
    }

    /// The next `publishDiagnostics` for a document, skipping other messages.
    func diagnostics(for uri: String, timeout: TimeInterval = 15) -> [JSONNode]? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while let message = next(timeout: max(0, deadline.timeIntervalSinceNow)) {
            guard message.member("method")?.stringValue == "textDocument/publishDiagnostics",
                message.member("params", "uri")?.stringValue == uri
            else { continue }
            return message.member("params", "diagnostics")?.arrayValue
        }
        return nil
    }

    /// Waits for the process to end; its exit code, or `nil` (and the process killed) when it is
    /// still running after `timeout` seconds.
    func waitForExit(timeout: TimeInterval = 15) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                return nil
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return process.terminationStatus
    }

    /// One framed message from the buffer, if a whole one is there (the lock is held).
    private func takeMessage() -> JSONNode? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard buffer.count >= 4, let end = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == separator }) else {
            return nil
        }
        let header = String(decoding: buffer[0..<end], as: UTF8.self)
        guard header.hasPrefix("Content-Length: "), let length = Int(header.dropFirst("Content-Length: ".count)) else {
            Issue.record("unexpected header from the server: \(header)")
            buffer.removeAll()
            return nil
        }
        let bodyStart = end + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let body = String(decoding: buffer[bodyStart..<(bodyStart + length)], as: UTF8.self)
        buffer.removeSubrange(0..<(bodyStart + length))
        do {
            return try JSONSubset.parse(body)
        } catch {
            Issue.record("the server sent a body that is not JSON: \(body)")
            return nil
        }
    }
}
