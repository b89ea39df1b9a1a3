import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the commit target (`FuzzTarget.commit`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.commit.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
