/// A first-in-first-out queue of jobs that does not shift its storage on every take (it
/// compacts once more than 1,024 are taken). Not thread-safe: its owner locks it.
struct FIFOQueue<Element> {
    private var elements: [Element] = []
    private var head = 0

    /// Elements waiting.
    var count: Int { elements.count - head }

    mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// The oldest element, removed; nil when none waits.
    mutating func take() -> Element? {
        guard head < elements.count else {
            elements.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }
        let element = elements[head]
        head += 1
        if head > 1024 {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}

extension FIFOQueue: Sendable where Element: Sendable {}
