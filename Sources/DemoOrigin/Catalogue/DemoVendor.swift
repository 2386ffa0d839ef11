/// A vendor of the v2/v2b origins: the course issued each one an `identifier` (a UUID, sent
/// as a request header on every write) and a `secret` (a short password, sent in the body).
/// Products belong to one vendor; only it may change or delete them.
public struct DemoVendor: Sendable, Hashable {
    public var id: Int64
    public var name: String
    /// The `identifier` header value that names this vendor.
    public var identifier: String
    /// The `secret` a write must repeat.
    public var secret: String

    public init(id: Int64, name: String, identifier: String, secret: String) {
        self.id = id
        self.name = name
        self.identifier = identifier
        self.secret = secret
    }

    /// The demo origin's vendors, fixed so tests and scripts can hard-code them (as the
    /// course apps hard-coded theirs):
    ///
    /// | id | name | identifier | secret |
    /// |---|---|---|---|
    /// | 1 | Demo Market | `5e1e3f0a-6a4c-11ed-a1eb-0242ac120002` | `demo-secret-1` |
    /// | 2 | Second Shop | `7c9d2b1e-6a4c-11ed-a1eb-0242ac120002` | `demo-secret-2` |
    ///
    /// Seeded items belong to vendor 1, except every fifth (ids 5, 10, 15, …), which belongs
    /// to vendor 2 (see ``CatalogueSeed``).
    public static let demo: [DemoVendor] = [
        DemoVendor(id: 1, name: "Demo Market", identifier: "5e1e3f0a-6a4c-11ed-a1eb-0242ac120002", secret: "demo-secret-1"),
        DemoVendor(id: 2, name: "Second Shop", identifier: "7c9d2b1e-6a4c-11ed-a1eb-0242ac120002", secret: "demo-secret-2"),
    ]
}
