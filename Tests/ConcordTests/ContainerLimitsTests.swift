import Foundation
import Testing

@testable import Concord

/// `.concord/limits` as it arrives from any device: read strictly, refused line by line.
@Suite struct ContainerLimitsTests {
    @Test func aLimitsFileIsReadWithCommentsAndTheLastLineWins() throws {
        #expect(try ContainerLimits(text: "# the container's\n\nfile-size 300m\n").fileSize == 300 << 20)
        #expect(try ContainerLimits(text: "file-size 1k\nfile-size\t2g\n").fileSize == 2 << 30)
        #expect(try ContainerLimits(text: "").fileSize == nil)
        #expect(try ContainerLimits(text: "# saved on Windows\r\nfile-size 2k\r\n").fileSize == 2 << 10, "CRLF line ends")
        #expect(ContainerLimits(fileSize: 1_536).text == "file-size 1536\n" && ContainerLimits(fileSize: 300 << 20).text == "file-size 300m\n")
    }

    @Test(arguments: ["file-size", "file-size lots", "file-size 0", "file-size -5m", "file-size 99999999999g", "size 1m", "file-size 1m extra"])
    func aMalformedLineIsRefusedByNumber(_ line: String) {
        #expect { try ContainerLimits(text: "# ok\n\(line)\n") } throws: { "\($0)".contains(".concord/limits line 2") }
    }
}
