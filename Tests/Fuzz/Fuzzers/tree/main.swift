import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the tree target (`FuzzTarget.tree`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.tree.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
