import GatewaySupport

/// Who sells a product: `{"id": 7, "name": "Demo Market"}` in the contract.
///
/// v2/v2b origins name the vendor's id on every product (`vendor_id`) but its name only in
/// some shapes (v2b list items' `vendorName`, the detail's `vendors`), so `name` may be `nil`.
public struct ProductVendor: Sendable, Hashable {
    public var id: Int64
    public var name: String?

    public init(id: Int64, name: String?) {
        self.id = id
        self.name = name
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id"); writer.integer(id)
        writer.key("name"); writer.string(name)
        writer.endObject()
    }
}
