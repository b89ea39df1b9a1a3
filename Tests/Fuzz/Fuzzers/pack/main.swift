import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the pack target (`FuzzTarget.pack`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.pack.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
