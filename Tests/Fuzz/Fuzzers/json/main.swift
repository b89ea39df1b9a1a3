import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the JSON target (`FuzzTarget.json`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.json.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
