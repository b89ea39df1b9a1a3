// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// libstdc++ linked into `concord` from its archive (Sources/ConcordTool/StaticLibstdcxx says how)
/// when the newest GCC folder, the one the compiler links from, holds it (Debian's libstdc++-NN-dev).
let staticLibstdcxx: [String] = {
    #if arch(arm64)
    let compilers = "/usr/lib/gcc/aarch64-linux-gnu"
    #else
    let compilers = "/usr/lib/gcc/x86_64-linux-gnu"
    #endif
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: compilers)) ?? []
    guard let newest = versions.max(by: { $0.compare($1, options: .numeric) == .orderedAscending }),
        FileManager.default.fileExists(atPath: "\(compilers)/\(newest)/libstdc++.a")
    else { return [] }
    return ["-L", Context.packageDirectory + "/Sources/ConcordTool/StaticLibstdcxx"]
}()

let package = Package(
    name: "Concord",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Concord", targets: ["Concord"]),
        .library(name: "ConcordMerge", targets: ["ConcordMerge"]),
        .executable(name: "concord", targets: ["ConcordTool"]),
        .executable(name: "concord-ui", targets: ["ConcordUITool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // libgit2's headers (libgit2-dev); the library itself is loaded on first use by
        // CGit2Loader (scripts/libgit2-forwarders), not linked.
        .systemLibrary(name: "CGit2"),
        // DWARF 4, as Swift's objects have: valgrind 3.19 (callgrind, the benchmarks' instruction
        // counts) cannot read a binary with clang's default DWARF 5 in it.
        .target(name: "CGit2Loader", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .systemLibrary(name: "CZlib"),
        .systemLibrary(name: "CSHA1"),
        // git's formats as value types over bytes, each read with the checks libgit2 makes:
        // no libgit2, no file system (fuzzed: scripts/fuzz).
        .target(name: "GitFormat", dependencies: ["CZlib", "CSHA1"]),
        // A repository's objects read, written and copied by Concord alone: packs, loose objects,
        // caches and transfers, no libgit2.
        .target(name: "GitStore", dependencies: ["GitFormat"]),
        .target(name: "Git", dependencies: ["CGit2", "CGit2Loader", "GitFormat", "GitStore"]),
        .target(name: "ConcordMerge", dependencies: ["Git", "GitFormat", "GitStore"]),
        .target(name: "Concord", dependencies: ["ConcordMerge", "Git", "GitFormat", "GitStore", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "ConcordCLI",
            dependencies: [
                "Concord",
                "ConcordMerge",
                "Git",
                "GitStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // libgit2's calls to these two mbedTLS functions come to CGit2Loader's (Authorities.c), which
        // parse the system's certificate authorities at the first TLS connection, not at libgit2's start.
        .executableTarget(
            name: "ConcordTool", dependencies: ["ConcordCLI"], exclude: ["StaticLibstdcxx"],
            linkerSettings: [
                .unsafeFlags(
                    [
                        "-Xlinker", "--export-dynamic-symbol=mbedtls_x509_crt_parse_file", "-Xlinker", "--export-dynamic-symbol=mbedtls_ssl_setup",
                    ] + staticLibstdcxx)
            ]),
        // The resolver page's server (`concord ui` starts it): its own target and executable, so that
        // the command line neither links nor starts a web server.
        .target(
            name: "ConcordUI",
            dependencies: [
                "Concord",
                "ConcordMerge",
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        .executableTarget(name: "ConcordUITool", dependencies: ["ConcordUI"]),
        // GitBytes (formats written byte by byte) and ScriptedCloud (a cloud whose calls a test scripts).
        .target(name: "TestSupport", dependencies: ["Git", "GitFormat"], path: "Tests/TestSupport"),
        // The fuzz targets' test functions, which the fuzz executables call and FuzzCorpusTests
        // runs every committed seed and saved crash through: GitFormat's readers, and ConcordMerge's
        // JSON reader and glob patterns.
        .target(name: "GitFormatFuzzing", dependencies: ["GitFormat", "ConcordMerge"], path: "Tests/GitFormatFuzzing"),
        .testTarget(name: "GitFormatTests", dependencies: ["GitFormat", "GitFormatFuzzing", "CSHA1", "TestSupport"]),
        .testTarget(name: "GitTests", dependencies: ["Git", "GitFormat", "GitStore", "TestSupport"]),
        .testTarget(name: "ConcordMergeTests", dependencies: ["ConcordMerge", "TestSupport"], exclude: ["Corpus"]),
        .testTarget(name: "ConcordTests", dependencies: ["Concord", "ConcordMerge", "Git", "GitFormat", "GitStore", "TestSupport"]),
        .testTarget(
            name: "ConcordCLITests",
            dependencies: ["ConcordCLI", "ConcordTool", "ConcordUITool", "Concord", "Git", "GitFormat"]
        ),
        // Runs the built concord-ui (ConcordUITool) on real containers, as ConcordCLITests runs concord;
        // JSONTextTests tries ConcordUI's JSON writer in-process.
        .testTarget(name: "ConcordUITests", dependencies: ["Concord", "ConcordMerge", "ConcordUI", "ConcordUITool"]),

    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer executables, one for each directory of Tests/Fuzz/Fuzzers (scripts/fuzz builds them with
// CONCORD_FUZZ=1 and -sanitize=fuzzer,address in .build-fuzz): only GitFormat, ConcordMerge's JSON and glob
// files, and what fuzzes them; no libgit2 and none of the package's dependencies, so that no other product
// is built with libFuzzer's runtime.
if Context.environment["CONCORD_FUZZ"] != nil {
    let fuzzed: Set<String> = ["CZlib", "CSHA1", "GitFormat", "GitFormatFuzzing"]
    package.targets = package.targets.filter { fuzzed.contains($0.name) }
    package.dependencies = []
    package.products = []
    // ConcordMerge's JSON reader and writer (with the merger the writer uses), its clock and its glob
    // patterns, which need nothing else of it: the module the fuzz targets import, under its own name.
    let readers = [
        "GlobPattern", "GlobPattern+Matching", "GlobPattern+Parsed", "GlobPattern+ScalarSet", "GlobPattern+Tokens", "HybridLogicalClock",
        "JSONMerger", "JSONMerger+Arrays", "JSONMerger+Lockstep", "JSONParseError", "JSONParser", "JSONPath", "JSONStyle", "JSONSyntax",
        "JSONValue", "JSONValue+Text", "JSONWriter", "QuotedText",
    ]
    package.targets += [
        .target(name: "ConcordMerge", dependencies: ["GitFormat"], path: "Sources/ConcordMerge", sources: readers.map { "\($0).swift" }),
        .systemLibrary(name: "CLibFuzzer", path: "Tests/Fuzz/CLibFuzzer"),
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer"], path: "Tests/Fuzz/FuzzDriver"),
    ]
    let fuzzers = (try? FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/Tests/Fuzz/Fuzzers")) ?? []
    for name in fuzzers.sorted() {
        package.targets.append(.executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzDriver", "GitFormatFuzzing"], path: "Tests/Fuzz/Fuzzers/\(name)"))
        package.products.append(.executable(name: "fuzz-\(name)", targets: ["fuzz-\(name)"]))
    }
}

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    // A generic type's metadata made by a direct call, not found from its mangled name: finding it
    // checks each conformance the type needs by a pass over every conformance record of the binary
    // (about 6,000), once per new type. That was a quarter of a `concord conflicts` (benchmarks/README.md).
    settings.append(.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]))
    target.swiftSettings = settings
}

// The documentation plugin, only when building the docs (CONCORD_DOCS=1), so that plain builds never compile it.
if Context.environment["CONCORD_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"))
}
