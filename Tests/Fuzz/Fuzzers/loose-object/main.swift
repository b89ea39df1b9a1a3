import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the loose-object target (`FuzzTarget.looseObject`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.looseObject.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
