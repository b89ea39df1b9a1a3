internal import GitFormat

extension FuzzTarget {
    /// The largest target a delta run rebuilds: small, so that a size over it is refused
    /// before anything is allocated.
    private static let largestTarget = 64 * 1024

    /// A delta and its base. Input: the delta's length (2 bytes), the delta, then the base.
    ///
    /// ``Delta/sizes(_:)`` must read the header ``DeltaModel`` reads, and
    /// ``Delta/apply(_:to:largest:)`` (with a largest target of 64 KB) must give exactly the
    /// model's answer: the same target, or nil.
    static func delta(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let delta = input.take(input.number(bytes: 2))
        let base = input.rest()
        try withExactCopy(delta) { deltaBuffer throws(FuzzFailure) in
            let sizes = Delta.sizes(deltaBuffer)
            let model = DeltaModel.header(delta)
            try expect(sizes?.base == model?.base && sizes?.target == model?.target, "sizes \(String(describing: sizes)) where the header gives \(String(describing: model))")
        }
        _ = try applied(delta, to: base, largest: largestTarget)
    }

    /// A base and a target. Input: a control byte (bit 0: both are folders), the base's length
    /// (2 bytes), the base, then the target.
    ///
    /// When ``Delta/make(from:to:tree:)`` gives a delta, it is at most half the target's size,
    /// its header gives both sizes, and applied to the base it rebuilds the target exactly (by
    /// ``Delta/apply(_:to:largest:)`` and by ``DeltaModel``). Between two equal files of 64
    /// bytes or more, it gives one.
    static func deltaMake(_ raw: UnsafeRawBufferPointer) throws(FuzzFailure) {
        var input = FuzzInput(raw)
        let tree = input.number(bytes: 1) & 1 != 0
        let base = input.take(input.number(bytes: 2))
        let target = input.rest()
        let made = try withExactCopy(base) { baseBuffer throws(FuzzFailure) in
            try withExactCopy(target) { targetBuffer throws(FuzzFailure) in Delta.make(from: baseBuffer, to: targetBuffer, tree: tree) }
        }
        guard let delta = made else {
            try expect(tree || target.count < 64 || base != target, "made no delta between two equal files of \(target.count) bytes")
            return
        }
        try expect(delta.count <= target.count / 2, "made a delta of \(delta.count) bytes for a target of \(target.count)")
        let header = DeltaModel.header(delta)
        try expect(header?.base == base.count && header?.target == target.count, "made a delta whose header gives \(String(describing: header))")
        let rebuilt = try applied(delta, to: base, largest: target.count)
        try expect(rebuilt == target, "the delta made does not rebuild its target")
    }

    /// ``Delta/apply(_:to:largest:)``'s answer, which must be ``DeltaModel``'s.
    static func applied(_ delta: [UInt8], to base: [UInt8], largest: Int) throws(FuzzFailure) -> [UInt8]? {
        let target = try withExactCopy(delta) { deltaBuffer throws(FuzzFailure) in
            try withExactCopy(base) { baseBuffer throws(FuzzFailure) in Delta.apply(deltaBuffer, to: baseBuffer, largest: largest) }
        }
        let model = DeltaModel.apply(delta, to: base, largest: largest)
        try expect(
            target == model,
            "apply gave \(target.map { "\($0.count) bytes" } ?? "nil") where the format gives \(model.map { "\($0.count) bytes" } ?? "nil")\(target != nil && model != nil ? " (different bytes)" : "")"
        )
        return target
    }
}
