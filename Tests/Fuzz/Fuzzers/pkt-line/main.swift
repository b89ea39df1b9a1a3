import FuzzDriver
import GitFormatFuzzing

/// libFuzzer's test function: one input through the pkt-line target (`FuzzTarget.packetLine`).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzTarget.packetLine.fuzz(data, size)
}

FuzzDriver.run(testOneInput)
