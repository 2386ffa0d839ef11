import Foundation
import GatewayModels
import Testing
import GatewaySupport

@Suite struct OriginRequestBodyTests {
    private func draft(discounted: String? = "15") throws -> ProductDraft {
        let sale = discounted.map { #","discountedPrice":\#($0)"# } ?? ""
        return try ProductDraft.decode(json: #"{"title":"맥북","description":"설명","price":16.9\#(sale),"currency":"USD","stock":12,"password":"pw","images":[{"filename":"내 사진.png","data":"\#(base64(png))"},{"filename":"b.jpg","data":"\#(base64(jpeg))"}]}"#.bytes)
    }

    private func parts(_ body: OriginRequestBody) throws -> [MultipartPart] {
        try MultipartParser(contentType: body.contentType).parse(body.bytes)
    }

    @Test func v1CreateIsMultipartWithOriginNames() throws {
        let body = try draft().originBody(for: .v1)
        let parts = try parts(body)
        #expect(parts.map(\.name) == ["title", "descriptions", "price", "currency", "stock", "discounted_price", "password", "images[]", "images[]"])
        #expect(parts.prefix(7).map(\.text) == ["맥북", "설명", "16.9", "USD", "12", "15", "pw"])
        #expect(parts[7].filename == "내 사진.png")
        #expect(parts[7].contentType == "image/png")
        #expect(parts[7].body == png)
        #expect(parts[8].contentType == "image/jpeg")
        let text = String(decoding: body.bytes, as: UTF8.self)
        let boundary = String(body.contentType.dropFirst("multipart/form-data; boundary=".count))
        #expect(text.hasPrefix("--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n맥북\r\n--\(boundary)\r\n"))
        #expect(text.hasSuffix("\r\n--\(boundary)--\r\n"))
    }

    @Test func v1CreateOmitsDiscountedPriceWhenNotSet() throws {
        #expect(try parts(try draft(discounted: nil).originBody(for: .v1)).map(\.name).contains("discounted_price") == false)
    }

    @Test func eachBodyHasAFreshBoundary() throws {
        let draft = try draft()
        #expect(draft.originBody(for: .v1).contentType != draft.originBody(for: .v1).contentType)
    }

    @Test func v2CreateHasParamsJSONWithTheDiscountAmount() throws {
        let parts = try parts(try draft().originBody(for: .v2, secret: "s3cret"))
        #expect(parts.map(\.name) == ["params", "images", "images"])
        #expect(parts[0].contentType == "application/json")
        #expect(parts[0].text == #"{"name":"맥북","descriptions":"설명","price":16.9,"currency":"USD","discounted_price":1.9,"stock":12,"secret":"s3cret"}"#)
        #expect(parts[1].filename == "내 사진.png")
        let v2b = try self.parts(try draft(discounted: nil).originBody(for: .v2b, secret: "s"))
        #expect(v2b[0].text == #"{"name":"맥북","description":"설명","price":16.9,"currency":"USD","discounted_price":0,"stock":12,"secret":"s"}"#)
    }

    @Test func patchBodies() throws {
        let patch = try ProductPatch.decode(json: #"{"password":"pw","discountedPrice":9,"title":"새 이름"}"#.bytes)
        let v1 = try parts(try patch.originBody(for: .v1))
        #expect(v1.map(\.name) == ["title", "discounted_price", "password"])
        #expect(v1.map(\.text) == ["새 이름", "9", "pw"])
        let v2 = try patch.originBody(for: .v2, secret: "s", current: CurrentPrices(price: 10, salePrice: nil))
        #expect(v2.contentType == "application/json")
        #expect(String(decoding: v2.bytes, as: UTF8.self) == #"{"name":"새 이름","discounted_price":1,"secret":"s"}"#)
        #expect(throws: ValidationFailure([FieldError(field: "price", message: "price is required with discountedPrice for this origin.")])) {
            try patch.originBody(for: .v2b, secret: "s")
        }
    }
}
