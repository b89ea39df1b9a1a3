import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the pack-index target (`FuzzTarget.packIndex`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.packIndex.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
