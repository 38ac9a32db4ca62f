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
        .executableTarget(name: "EntitleCLI", dependencies: ["Entitle"]),
        // Generated workloads, the JSONDecoder baseline and the hand-written evaluator, shared by
        // the benchmark and the tests that check they agree.
        .target(name: "EntitleWorkloads", dependencies: ["Entitle"]),
        // `swift run -c release entitle-bench`: throughput, ratios against baselines, memory.
        .executableTarget(name: "EntitleBench", dependencies: ["Entitle", "EntitleWorkloads", "CAllocationCounter"]),
        .target(name: "CAllocationCounter"),
        .testTarget(
            name: "EntitleTests",
            dependencies: ["Entitle", "EntitleWorkloads"],
            resources: [.copy("Corpus")]
        ),
    ]
)
