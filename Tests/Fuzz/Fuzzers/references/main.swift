import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the references target (`FuzzTarget.references`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.references.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
