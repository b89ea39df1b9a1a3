// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Concord",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Concord", targets: ["Concord"]),
        .library(name: "ConcordMerge", targets: ["ConcordMerge"]),
        .executable(name: "concord", targets: ["ConcordTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGit2",
            pkgConfig: "libgit2",
            providers: [.apt(["libgit2-dev"])]
        ),
        .systemLibrary(name: "CZlib"),
        .systemLibrary(name: "CSHA1"),
        // git's formats as value types over bytes, each read with the checks libgit2 makes:
        // no libgit2, no file system (fuzzed: scripts/fuzz).
        .target(name: "GitFormat", dependencies: ["CZlib", "CSHA1"]),
        // A repository's objects read, written and copied by Concord alone: packs, loose objects,
        // caches and transfers, no libgit2.
        .target(name: "GitStore", dependencies: ["GitFormat"]),
        .target(name: "Git", dependencies: ["CGit2", "GitFormat", "GitStore"]),
        .target(name: "ConcordMerge", dependencies: ["Git"]),
        .target(name: "Concord", dependencies: ["ConcordMerge", "Git", "GitFormat", "GitStore", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "ConcordCLI",
            dependencies: [
                "Concord",
                "ConcordMerge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "ConcordTool", dependencies: ["ConcordCLI"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "GitFormatTests", dependencies: ["GitFormat", "CSHA1", "TestSupport"]),
        .testTarget(name: "GitTests", dependencies: ["Git", "GitFormat", "GitStore"]),
        .testTarget(name: "ConcordMergeTests", dependencies: ["ConcordMerge", "TestSupport"], exclude: ["Corpus"]),
        .testTarget(name: "ConcordTests", dependencies: ["Concord", "ConcordMerge", "Git", "GitFormat", "GitStore", "TestSupport"]),
        .testTarget(
            name: "ConcordCLITests",
            dependencies: ["ConcordCLI", "ConcordTool"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}

// The documentation plugin, only when building the docs (CONCORD_DOCS=1), so that plain builds never compile it.
if Context.environment["CONCORD_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"))
}
