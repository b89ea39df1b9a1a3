import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the glob target (`FuzzTarget.glob`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.glob.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
