import Foundation
import GatewayModels
import Testing
import GatewaySupport

@Suite struct ProductPatchTests {
    @Test func everythingButThePasswordIsOptional() throws {
        let patch = try ProductPatch.decode(json: #"{"password":"pw","stock":0}"#.bytes)
        #expect(patch.password == "pw")
        #expect(patch.stock == 0)
        #expect(patch.title == nil)
        #expect(patch.images == nil)
    }

    /// Left out is not the same as null: the contract declares no member of an update
    /// nullable, so null is refused (as openapi.yaml says), not read as "unchanged".
    @Test func nullIsRefusedNotTakenForAbsent() {
        #expect(throws: ValidationFailure([
            FieldError(field: "images", message: "images must be an array, not null."),
            FieldError(field: "title", message: "title must not be null; leave it out instead."),
            FieldError(field: "discountedPrice", message: "discountedPrice must not be null; leave it out instead."),
        ])) { try ProductPatch.decode(json: #"{"password":"pw","stock":0,"title":null,"discountedPrice":null,"images":null}"#.bytes) }
    }

    @Test func passwordIsRequiredAndSomethingMustChange() {
        #expect(throws: ValidationFailure([FieldError(field: "password", message: "password is required.")])) {
            try ProductPatch.decode(json: #"{"title":"t"}"#.bytes)
        }
        #expect(throws: ValidationFailure([FieldError(field: "body", message: "Nothing to update: send at least one field besides password.")])) {
            try ProductPatch.decode(json: #"{"password":"p"}"#.bytes)
        }
        // An empty image list replaces nothing: refused, as openapi.yaml's minItems says.
        #expect(throws: ValidationFailure([FieldError(field: "images", message: "Send 1 to 5 images; got 0.")])) {
            try ProductPatch.decode(json: #"{"password":"p","images":[]}"#.bytes)
        }
    }

    @Test func collectsEveryError() {
        let six = String(repeating: "{\"data\":\"\(base64(png))\"},", count: 6).dropLast()
        #expect(throws: ValidationFailure([
            FieldError(field: "price", message: "price must be a number."),
            FieldError(field: "currency", message: "currency must be an ISO 4217 currency code such as KRW or USD; \"WON\" is not one."),
            FieldError(field: "password", message: "password is required."),
            FieldError(field: "images", message: "Send 1 to 5 images; got 6."),
        ])) { try ProductPatch.decode(json: #"{"price":"1","currency":"WON","images":[\#(six)]}"#.bytes) }
    }

    @Test func multipart() throws {
        let form = MultipartFormData(parts: [.field("password", "p"), .field("discountedPrice", "9.5"), .file("images[]", filename: "x.png", contentType: "image/png", data: png)])
        let patch = try ProductPatch.decode(multipart: form.encoded(), contentType: form.contentType)
        #expect(patch.discountedPrice == Decimal(string: "9.5"))
        #expect(patch.images?.map(\.filename) == ["x.png"])
    }

    @Test func deletionNeedsAPassword() throws {
        #expect(try ProductDeletion.decode(json: #"{"password":"p"}"#.bytes).password == "p")
        #expect(throws: ValidationFailure([FieldError(field: "password", message: "password is required.")])) {
            try ProductDeletion.decode(json: "{}".bytes)
        }
        #expect(ProductDeletion(password: "a\"b").v1Body() == OriginRequestBody(contentType: "application/json", bytes: #"{"password":"a\"b"}"#.bytes))
    }

    /// A write made with vendor credentials the gateway holds: `password` may be left out
    /// (then empty), a delete may have no body; one sent is still checked.
    @Test func thePasswordMayBeLeftOutWhenNotRequired() throws {
        var limits = DraftLimits()
        limits.passwordRequired = false
        #expect(try ProductDeletion.decode(json: [], limits: limits).password == "")
        #expect(try ProductDeletion.decode(json: "{}".bytes, limits: limits).password == "")
        #expect(try ProductDeletion.decode(json: #"{"password":"p"}"#.bytes, limits: limits).password == "p")
        #expect(throws: ValidationFailure([FieldError(field: "password", message: "password must be 1 to 100 characters long; it has 0.")])) {
            try ProductDeletion.decode(json: #"{"password":""}"#.bytes, limits: limits)
        }
        #expect(throws: ValidationFailure.self) { try ProductDeletion.decode(json: [], limits: DraftLimits()) }
        let patch = try ProductPatch.decode(json: #"{"stock":4}"#.bytes, limits: limits)
        #expect(patch.password == "" && patch.stock == 4)
        #expect(throws: ValidationFailure([FieldError(field: "body", message: "Nothing to update: send at least one field besides password.")])) {
            try ProductPatch.decode(json: "{}".bytes, limits: limits)
        }
        let image = Data(png).base64EncodedString()
        let draft = try ProductDraft.decode(
            json: #"{"title":"t","description":"d","price":1,"currency":"USD","stock":1,"images":[{"data":"\#(image)"}]}"#.bytes, limits: limits)
        #expect(draft.password == "")
    }
}
