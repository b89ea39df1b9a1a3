import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the zlib target (`FuzzTarget.zlib`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.zlib.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
