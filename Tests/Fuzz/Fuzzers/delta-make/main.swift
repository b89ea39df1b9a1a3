import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the delta-make target (`FuzzTarget.deltaMake`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.deltaMake.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
