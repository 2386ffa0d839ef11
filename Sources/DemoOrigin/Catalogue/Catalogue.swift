import Foundation
import GatewayModels
import GatewaySupport

/// The items the demo origin serves, in memory, ascending by id, shared by every request.
/// Thread-safe: every read and write holds one lock, and password (v1) and vendor (v2/v2b)
/// checks happen under the same lock as the change they allow.
final class Catalogue: Sendable {
    /// Items per `GET /items/{page}`, as the v1 server listed them.
    static let pageSize = 20

    fileprivate struct State {
        var items: [DemoItem] = []
        var nextID: Int64 = 1
    }

    private let state = Locked(State())

    /// Replaces every item (seed, data file, reset). New ids continue after the largest.
    func replace(with items: [DemoItem]) {
        let sorted = items.sorted { $0.id < $1.id }
        state.withLock { $0 = State(items: sorted, nextID: (sorted.last?.id ?? 0) + 1) }
    }

    var all: [DemoItem] { state.withLock { $0.items } }

    /// Page `page` (1-based): up to 20 items; empty past the end.
    func page(_ page: Int) -> [DemoItem] {
        state.withLock { state in
            let start = (page - 1) * Self.pageSize
            guard page >= 1, start < state.items.count else { return [] }
            return Array(state.items[start..<min(start + Self.pageSize, state.items.count)])
        }
    }

    func item(id: Int64) -> DemoItem? {
        state.withLock { state in state.index(of: id).map { state.items[$0] } }
    }

    /// Adds an item from a complete form; it gets the next id and the current time.
    func create(_ form: ItemForm, now: Date = Date()) -> DemoItem {
        state.withLock { state in
            let item = DemoItem(
                id: state.nextID, title: form.title ?? "", descriptions: form.descriptions ?? "", price: form.price ?? 0,
                currency: form.currency ?? "", stock: form.stock ?? 0, discountedPrice: form.discountedPrice,
                registrationDate: EpochSeconds.decimal(now), password: form.password ?? "",
                images: form.images.map { .uploaded(bytes: $0.bytes, kind: $0.kind, lastModified: now) })
            state.nextID += 1
            state.items.append(item)
            return item
        }
    }

    /// Applies the fields `form` sets to item `id`; images, when sent, replace all of them.
    func update(id: Int64, with form: ItemForm, now: Date = Date()) throws(V1Failure) -> DemoItem {
        try state.withLock { state throws(V1Failure) in
            guard let index = state.index(of: id) else { throw .notFound }
            guard state.items[index].password == form.password else { throw .wrongPassword }
            var item = state.items[index]
            if let title = form.title { item.title = title }
            if let descriptions = form.descriptions { item.descriptions = descriptions }
            if let price = form.price { item.price = price }
            if let currency = form.currency { item.currency = currency }
            if let stock = form.stock { item.stock = stock }
            if let discountedPrice = form.discountedPrice { item.discountedPrice = discountedPrice }
            if !form.images.isEmpty {
                item.images = form.images.map { .uploaded(bytes: $0.bytes, kind: $0.kind, lastModified: now) }
            }
            state.items[index] = item
            return item
        }
    }

    /// Removes item `id` when `password` is its password; returns it as it was.
    func delete(id: Int64, password: String) throws(V1Failure) -> DemoItem {
        try state.withLock { state throws(V1Failure) in
            guard let index = state.index(of: id) else { throw .notFound }
            guard state.items[index].password == password else { throw .wrongPassword }
            return state.items.remove(at: index)
        }
    }

    // MARK: - v2/v2b

    /// Every item newest first (id descending) whose title or description contains
    /// `search`, ignoring case; every item when `search` is nil.
    func newestFirst(matching search: String?) -> [DemoItem] {
        let items = all.reversed()
        guard let search else { return Array(items) }
        return items.filter { item in
            item.title.range(of: search, options: .caseInsensitive) != nil
                || item.descriptions.range(of: search, options: .caseInsensitive) != nil
        }
    }

    /// Adds a product of vendor `vendorID` from complete v2/v2b params (see
    /// ``V2ProductParams/requireComplete(generation:)``): the next id, the current time, no
    /// item password. A discount amount `a` becomes the sale price `price − a` (none for 0).
    func create(_ params: V2ProductParams, images: [ItemForm.Image], vendorID: Int64, now: Date = Date()) -> DemoItem {
        state.withLock { state in
            let price = params.price ?? 0
            let amount = params.discountAmount ?? 0
            let item = DemoItem(
                id: state.nextID, title: params.name ?? "", descriptions: params.description ?? "", price: price,
                currency: params.currency ?? "", stock: params.stock ?? 0, discountedPrice: amount > 0 ? price - amount : nil,
                registrationDate: EpochSeconds.decimal(now), password: "",
                images: images.map { .uploaded(bytes: $0.bytes, kind: $0.kind, lastModified: now) }, vendorID: vendorID)
            state.nextID += 1
            state.items.append(item)
            return item
        }
    }

    /// Applies the members `params` sets to product `id` when vendor `vendorID` owns it.
    /// The discount is kept as an amount, as the v2 server stored it: a new price alone keeps
    /// the old discount amount.
    ///
    /// - Throws: ``V2Failure/productNotFound``, ``V2Failure/otherVendor``, or
    ///   ``V2Failure/discountAbovePrice`` when the discount would exceed the price.
    func update(id: Int64, vendorID: Int64, with params: V2ProductParams) throws(V2Failure) -> DemoItem {
        try state.withLock { state throws(V2Failure) in
            guard let index = state.index(of: id) else { throw .productNotFound }
            guard state.items[index].vendorID == vendorID else { throw .otherVendor }
            var item = state.items[index]
            let price = params.price ?? item.price
            let amount = params.discountAmount ?? item.discountAmount
            guard amount <= price else { throw .discountAbovePrice }
            if let name = params.name { item.title = name }
            if let description = params.description { item.descriptions = description }
            if let currency = params.currency { item.currency = currency }
            if let stock = params.stock { item.stock = stock }
            item.price = price
            item.discountedPrice = amount > 0 ? price - amount : nil
            state.items[index] = item
            return item
        }
    }

    /// Removes product `id` when vendor `vendorID` owns it; returns it as it was.
    /// - Throws: ``V2Failure/productNotFound``, ``V2Failure/otherVendor``.
    func remove(id: Int64, vendorID: Int64) throws(V2Failure) -> DemoItem {
        try state.withLock { state throws(V2Failure) in
            guard let index = state.index(of: id) else { throw .productNotFound }
            guard state.items[index].vendorID == vendorID else { throw .otherVendor }
            return state.items.remove(at: index)
        }
    }
}

extension Catalogue.State {
    /// Binary search: items stay sorted by id.
    fileprivate func index(of id: Int64) -> Int? {
        var low = 0
        var high = items.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if items[middle].id == id { return middle }
            if items[middle].id < id { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
