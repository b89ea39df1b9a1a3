import Foundation
import Testing

@testable import GitFormat

@Suite struct PackIndexTests {
    @Test func placeholder() {}
}
