// swift-tools-version: 6.0
// An app's package that depends on Concord by path, as the README shows: its code uses only what
// `import Concord` and `import ConcordMerge` give (no Logging import, no @testable), from the
// main actor. scripts/app-package builds and tests it.
import PackageDescription

let package = Package(
    name: "NotesApp",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Concord", path: "../..")],
    targets: [
        .target(name: "NotesApp", dependencies: [.product(name: "Concord", package: "Concord"), .product(name: "ConcordMerge", package: "Concord")]),
        .testTarget(name: "NotesAppTests", dependencies: ["NotesApp"]),
    ]
)
