// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "entitle",
    products: [
        .library(name: "Entitle", targets: ["Entitle"]),
        .executable(name: "entitle", targets: ["EntitleCLI"]),
        .executable(name: "entitle-bench", targets: ["EntitleBench"]),
    ],
    targets: [
        .target(name: "Entitle"),
        // The commands of `entitle`, as library code the tests run; `import Entitle` shows the
        // domain only.
        .target(name: "EntitleCommandLine", dependencies: ["Entitle"]),
        .executableTarget(name: "EntitleCLI", dependencies: ["EntitleCommandLine"]),
        // Generated workloads, the JSONDecoder baseline and the hand-written evaluator, shared by
        // the benchmark and the tests that check they agree.
        .target(name: "EntitleWorkloads", dependencies: ["Entitle"]),
        // `swift run -c release entitle-bench`: throughput, ratios against baselines, memory.
        .executableTarget(name: "EntitleBench", dependencies: ["Entitle", "EntitleWorkloads", "CAllocationCounter"]),
        .target(name: "CAllocationCounter"),
        .testTarget(
            name: "EntitleTests",
            dependencies: ["Entitle", "EntitleCommandLine", "EntitleWorkloads"],
            resources: [.copy("Corpus")]
        ),
    ]
)
