import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the delta target (`FuzzTarget.delta`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.delta.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
