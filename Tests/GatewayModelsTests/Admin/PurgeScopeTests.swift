import GatewayModels
import Testing
import GatewaySupport

@Suite struct PurgeScopeTests {
    static func decode(_ text: String) -> Result<PurgeScope, PurgeScope.Invalid> {
        PurgeScope.decode(Array(text.utf8))
    }

    @Test func readsEachScope() {
        #expect(Self.decode(#"{"products": [3, 9, 3]}"#) == .success(.products([3, 9])))
        #expect(Self.decode(#"{"pages": "all"}"#) == .success(.pages))
        #expect(Self.decode(#"{"all": true}"#) == .success(.all))
    }

    @Test(arguments: [
        (#"[]"#, [""]),
        (#"{}"#, [""]),
        (#"{"all": true, "pages": "all"}"#, [""]),
        (#"{"products": []}"#, ["products"]),
        (#"{"products": [0, 1.5, "7", 9223372036854775808, 4]}"#, ["products[0]", "products[1]", "products[2]", "products[3]"]),
        (#"{"pages": "some", "all": 1, "other": null}"#, ["all", "other", "pages"]),
    ])
    func listsEveryError(text: String, fields: [String]) {
        guard case .failure(let invalid) = Self.decode(text) else {
            Issue.record("accepted \(text)")
            return
        }
        #expect(invalid.errors.map(\.field) == fields)
    }

    @Test func refusesTooManyProducts() {
        let ids = (1...(PurgeScope.maxProducts + 1)).map(String.init).joined(separator: ",")
        guard case .failure(let invalid) = Self.decode(#"{"products": [\#(ids)]}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(invalid.errors == [FieldError(field: "products", message: "must be an array of 1 to 1000 product ids.")])
    }
}
