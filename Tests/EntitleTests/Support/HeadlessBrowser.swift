import Foundation

/// Headless Chromium, to see a picture as a browser shows it: `$ENTITLE_CHROMIUM`, else the
/// first of `chromium`, `chromium-browser`, `google-chrome` on the `PATH` (Debian's package is
/// `chromium`; CI installs it, see .ci/run).
enum HeadlessBrowser {
    static let path: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["ENTITLE_CHROMIUM"], !given.isEmpty { return given }
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
            for directory in directories {
                let candidate = directory + "/" + name
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Screenshots `page` (a file) at `width` x `height` CSS pixels, one device pixel each, into
    /// a PNG file, with a profile of its own; gives up after `timeout` seconds. Waits without
    /// holding a thread, so the tests running beside it go on.
    static func screenshot(_ page: URL, width: Int, height: Int, into png: URL, timeout: Double = 120) async throws {
        guard let path else { throw Failure(description: "no Chromium installed") }
        let profile = Fixtures.scratch("entitle-chromium")
        defer { try? FileManager.default.removeItem(at: profile) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        // --no-sandbox: CI runs as root, where Chromium refuses its sandbox.
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--force-device-scale-factor=1", "--user-data-dir=\(profile.path)",
            "--window-size=\(width),\(height)", "--screenshot=\(png.path)", page.absoluteString,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let finished = AsyncStream<Void> { continuation in
            process.terminationHandler = { _ in
                continuation.yield()
                continuation.finish()
            }
        }
        try process.run()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeout))
            process.terminate()
        }
        for await _ in finished {}
        watchdog.cancel()
        if process.terminationReason == .uncaughtSignal { throw Failure(description: "Chromium took more than \(Int(timeout)) s, or was killed") }
        guard process.terminationStatus == 0 else { throw Failure(description: "Chromium exited with \(process.terminationStatus)") }
    }
}
