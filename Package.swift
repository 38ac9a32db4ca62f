// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "entitle",
    products: [
        .library(name: "Entitle", targets: ["Entitle"]),
        .executable(name: "entitle", targets: ["EntitleCLI"]),
        .executable(name: "entitle-bench", targets: ["EntitleBench"]),
        .executable(name: "entitle-example-service", targets: ["EntitleExampleService"]),
    ],
    // `swift build --traits SystemCrypto` verifies Apple's signatures with the platform's
    // cryptography (OpenSSL's libcrypto on Linux, Security.framework on Apple platforms); off by
    // default, so the package builds on a bare toolchain (README: Trust).
    traits: [
        .trait(name: "SystemCrypto", description: "Verify Apple's signatures with the system's cryptography")
    ],
    targets: [
        .target(
            name: "Entitle",
            dependencies: [.target(name: "CSystemCrypto", condition: .when(platforms: [.linux, .android], traits: ["SystemCrypto"]))]
        ),
        // libcrypto (OpenSSL 3) through pkg-config; linked only with the SystemCrypto trait.
        .systemLibrary(name: "CSystemCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .yum(["openssl-devel"])]),
        // The commands of `entitle`, as library code the tests run; `import Entitle` shows the
        // domain only.
        .target(name: "EntitleCommandLine", dependencies: ["Entitle", "EntitleLanguageServer"]),
        // `entitle lsp`: the Language Server Protocol server for catalogs, which the command runs.
        .target(name: "EntitleLanguageServer", dependencies: ["Entitle"]),
        .executableTarget(name: "EntitleCLI", dependencies: ["EntitleCommandLine"]),
        // The Library article's example: a service's glue around the library, in under 60 lines.
        .executableTarget(name: "EntitleExampleService", dependencies: ["Entitle"]),
        // Generated workloads, the JSONDecoder baseline and the hand-written evaluator, shared by
        // the benchmark and the tests that check they agree.
        .target(name: "EntitleWorkloads", dependencies: ["Entitle"]),
        // `swift run -c release entitle-bench`: throughput, ratios against baselines, memory;
        // History.md is the dated diary of the steps its figures record.
        .executableTarget(
            name: "EntitleBench", dependencies: ["Entitle", "EntitleCommandLine", "EntitleWorkloads", "CAllocationCounter"],
            exclude: ["History.md"]),
        .target(name: "CAllocationCounter"),
        .testTarget(
            name: "EntitleTests",
            dependencies: ["Entitle", "EntitleCommandLine", "EntitleLanguageServer", "EntitleWorkloads"],
            // Snapshots/: expected outputs the tests read from the checkout (Snapshot.expect).
            exclude: ["Snapshots"],
            resources: [.copy("Corpus")]
        ),
    ]
)
