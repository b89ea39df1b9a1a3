import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the configuration target (`FuzzTarget.config`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.config.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
