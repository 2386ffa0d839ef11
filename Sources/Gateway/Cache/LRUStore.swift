/// Values by key with a cost each, least recently used evicted first once the total cost
/// passes `budget`. Gets and sets are O(1): the recency list is doubly linked through array
/// slots, so it allocates nothing per access.
///
/// Value type without locking; `PageCache` guards one with a mutex.
struct LRUStore<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Node: Sendable {
        var key: Key
        var value: Value
        var cost: Int
        var previous: Int
        var next: Int
    }

    let budget: Int
    private(set) var totalCost = 0
    private var slots: [Node?] = []
    private var freeSlots: [Int] = []
    private var index: [Key: Int] = [:]
    /// Most recently used.
    private var head = -1
    /// Least recently used: evicted first.
    private var tail = -1

    init(budget: Int) {
        self.budget = budget
    }

    var count: Int { index.count }

    /// The value for `key`, now the most recently used.
    mutating func get(_ key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToFront(slot)
        return slots[slot]!.value
    }

    /// Keys from most to least recently used (for tests and diagnostics).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = head
        while slot >= 0 {
            keys.append(slots[slot]!.key)
            slot = slots[slot]!.next
        }
        return keys
    }

    /// Sets `key` to `value`, most recently used, and evicts from the tail until the total
    /// cost fits the budget. Returns the number of other entries evicted. A value costing
    /// more than the whole budget is not stored (and removes any old value for `key`).
    mutating func set(_ key: Key, _ value: Value, cost: Int) -> Int {
        insert(key, value, cost: cost).count
    }

    /// `set(_:_:cost:)`, returning the keys of the entries it evicted (the disk tier
    /// deletes their files).
    mutating func insert(_ key: Key, _ value: Value, cost: Int) -> [Key] {
        remove(key)
        guard cost <= budget else { return [] }
        let node = Node(key: key, value: value, cost: cost, previous: -1, next: head)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = node
        } else {
            slot = slots.count
            slots.append(node)
        }
        if head >= 0 { slots[head]!.previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        index[key] = slot
        totalCost += cost
        var evicted: [Key] = []
        while totalCost > budget, tail >= 0, tail != slot {
            let key = slots[tail]!.key
            remove(key)
            evicted.append(key)
        }
        return evicted
    }

    @discardableResult
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        let node = slots[slot]!
        unlink(slot)
        slots[slot] = nil
        freeSlots.append(slot)
        totalCost -= node.cost
        return node.value
    }

    mutating func removeAll(where shouldRemove: (Key) -> Bool) -> Int {
        let doomed = index.keys.filter(shouldRemove)
        for key in doomed { remove(key) }
        return doomed.count
    }

    private mutating func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        slots[slot]!.previous = -1
        slots[slot]!.next = head
        if head >= 0 { slots[head]!.previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let previous = slots[slot]!.previous
        let next = slots[slot]!.next
        if previous >= 0 { slots[previous]!.next = next } else { head = next }
        if next >= 0 { slots[next]!.previous = previous } else { tail = previous }
    }
}
