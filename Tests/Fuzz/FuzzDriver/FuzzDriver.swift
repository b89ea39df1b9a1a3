internal import CLibFuzzer
internal import Glibc

/// libFuzzer's driver, started from a fuzz executable's `main.swift`.
///
/// libFuzzer usually brings its own `main`, which calls `LLVMFuzzerTestOneInput`. SwiftPM
/// gives every executable a `main` of its own (the module's top-level code), so a fuzz
/// executable hands libFuzzer its test function through `LLVMFuzzerRunDriver` instead: the
/// command line (corpus folders, `-max_total_time`, `-seed`, …) is libFuzzer's, unchanged.
package enum FuzzDriver {
    /// Runs libFuzzer with this process's arguments, calling `test` with each input, and exits
    /// with libFuzzer's status.
    package static func run(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, test))
    }
}
