import CTLSMemory
import Testing

/// The OpenSSL allocator's free lists, called directly (installing it in the test process is
/// not possible: OpenSSL has allocated by then, so nothing else uses them here). The lists
/// are per thread and each test is synchronous, so it counts from what its thread's lists
/// held when it began.
@Suite struct TLSMemoryTests {
    @Test func aFreedBlockServesTheNextOfItsClass() {
        // Empties this thread's 32 KiB list (it keeps at most 4).
        let drained = (0..<4).map { _ in gateway_tls_memory_malloc(20_000, nil, 0) }
        let bytes = gateway_tls_memory_free_bytes()
        let first = gateway_tls_memory_malloc(17_000, nil, 0)
        #expect(first != nil)
        gateway_tls_memory_free(first, nil, 0)
        // Kept, as a block of the 32 KiB class.
        #expect(gateway_tls_memory_free_bytes() == bytes + 32 * 1024)
        // Another size of the same class (16 KiB + 1 to 32 KiB) takes it back.
        let second = gateway_tls_memory_malloc(30_000, nil, 0)
        #expect(second == first)
        #expect(gateway_tls_memory_free_bytes() == bytes)
        // A block of another class does not.
        let small = gateway_tls_memory_malloc(100, nil, 0)
        #expect(small != first)
        gateway_tls_memory_free(second, nil, 0)
        gateway_tls_memory_free(small, nil, 0)
        for block in drained { gateway_tls_memory_free(block, nil, 0) }
    }

    @Test func aClassKeepsOnlyItsLimit() {
        // Empties this thread's 32 KiB list first, then gives ten blocks back: four are kept.
        let taken = (0..<10).map { _ in gateway_tls_memory_malloc(20_000, nil, 0) }
        let before = gateway_tls_memory_free_bytes()
        let more = (0..<10).map { _ in gateway_tls_memory_malloc(20_000, nil, 0) }
        for block in more { gateway_tls_memory_free(block, nil, 0) }
        #expect(gateway_tls_memory_free_bytes() == before + 4 * 32 * 1024)
        for block in taken { gateway_tls_memory_free(block, nil, 0) }
        #expect(gateway_tls_memory_free_bytes() == before + 4 * 32 * 1024)
        // The 64-byte class keeps 256.
        let small = (0..<600).map { _ in gateway_tls_memory_malloc(64, nil, 0) }
        let held = gateway_tls_memory_free_bytes()
        for block in small { gateway_tls_memory_free(block, nil, 0) }
        #expect(gateway_tls_memory_free_bytes() == held + 256 * 64)
    }

    @Test func reallocKeepsTheBytesAcrossClasses() {
        let block = gateway_tls_memory_malloc(40, nil, 0)!.assumingMemoryBound(to: UInt8.self)
        for index in 0..<40 { block[index] = UInt8(index) }
        // Within its class (up to 64 bytes): the same block.
        #expect(gateway_tls_memory_realloc(block, 64, nil, 0) == UnsafeMutableRawPointer(block))
        let grown = gateway_tls_memory_realloc(block, 5000, nil, 0)!.assumingMemoryBound(to: UInt8.self)
        #expect((0..<40).allSatisfy { grown[$0] == UInt8($0) })
        // The old block went back to its list: the next 64-byte block is it.
        let again = gateway_tls_memory_malloc(50, nil, 0)
        #expect(again == UnsafeMutableRawPointer(block))
        gateway_tls_memory_free(again, nil, 0)
        // Past the largest class (64 KiB): unpooled, and given back to malloc, not kept.
        let large = gateway_tls_memory_realloc(grown, 100_000, nil, 0)!.assumingMemoryBound(to: UInt8.self)
        #expect((0..<40).allSatisfy { large[$0] == UInt8($0) })
        let held = gateway_tls_memory_free_bytes()
        gateway_tls_memory_free(large, nil, 0)
        #expect(gateway_tls_memory_free_bytes() == held)
        #expect(gateway_tls_memory_realloc(nil, 0, nil, 0) == nil)
        #expect(gateway_tls_memory_malloc(0, nil, 0) == nil)
    }
}
