// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "entitle",
    products: [
        .library(name: "Entitle", targets: ["Entitle"]),
        .executable(name: "entitle", targets: ["EntitleCLI"]),
    ],
    targets: [
        .target(name: "Entitle"),
        .executableTarget(name: "EntitleCLI", dependencies: ["Entitle"]),
        .testTarget(
            name: "EntitleTests",
            dependencies: ["Entitle"],
            resources: [.copy("Corpus")]
        ),
    ]
)
