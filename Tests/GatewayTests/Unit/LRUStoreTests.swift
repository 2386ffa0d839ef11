import Testing
import TestSupport
@testable import Gateway

@Suite struct LRUStoreTests {
    @Test func evictsLeastRecentlyUsedToFitTheBudget() {
        var store = LRUStore<String, Int>(budget: 10)
        #expect(store.set("a", 1, cost: 4) == 0)
        #expect(store.set("b", 2, cost: 4) == 0)
        #expect(store.get("a") == 1)
        #expect(store.set("c", 3, cost: 4) == 1)
        #expect(store.get("b") == nil)
        #expect(store.keysByRecency == ["c", "a"])
        #expect(store.totalCost == 8)
    }

    @Test func replacingAKeyReplacesItsCost() {
        var store = LRUStore<String, Int>(budget: 10)
        _ = store.set("a", 1, cost: 6)
        #expect(store.set("a", 2, cost: 3) == 0)
        #expect(store.totalCost == 3)
        #expect(store.count == 1)
        #expect(store.get("a") == 2)
    }

    @Test func aValueOverTheWholeBudgetIsNotStored() {
        var store = LRUStore<String, Int>(budget: 10)
        _ = store.set("a", 1, cost: 5)
        #expect(store.set("a", 2, cost: 11) == 0)
        #expect(store.get("a") == nil)
        #expect(store.totalCost == 0)
    }

    @Test func removeAllWhere() {
        var store = LRUStore<String, Int>(budget: 100)
        for key in ["list-1", "list-2", "detail-7"] { _ = store.set(key, 0, cost: 1) }
        #expect(store.removeAll { $0.hasPrefix("list") } == 2)
        #expect(store.keysByRecency == ["detail-7"])
    }

    @Test func matchesAReferenceModelOverRandomOperations() {
        var generator = SeededGenerator(seed: 21)
        var store = LRUStore<Int, Int>(budget: 50)
        var model: [(key: Int, value: Int, cost: Int)] = []  // most recent first
        for step in 0..<20_000 {
            let key = Int(generator.next() % 20)
            if generator.next() % 3 == 0 {
                let got = store.get(key)
                if let position = model.firstIndex(where: { $0.key == key }) {
                    let entry = model.remove(at: position)
                    model.insert(entry, at: 0)
                    #expect(got == entry.value)
                } else {
                    #expect(got == nil)
                }
            } else {
                let cost = Int(generator.next() % 12) + 1
                _ = store.set(key, step, cost: cost)
                model.removeAll { $0.key == key }
                model.insert((key, step, cost), at: 0)
                while model.reduce(0, { $0 + $1.cost }) > 50 { model.removeLast() }
            }
            #expect(store.keysByRecency == model.map(\.key))
            #expect(store.totalCost == model.reduce(0) { $0 + $1.cost })
        }
    }
}
