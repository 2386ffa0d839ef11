import Foundation
import GatewayModels
import Testing
import GatewaySupport

@Suite struct ProductDraftTests {
    static let validJSON = """
    {"title":"맥북 에어","description":"가벼운 노트북","price":16.9,"discountedPrice":15,"currency":"USD","stock":1000000000000,
     "password":"pw","images":[{"filename":"내 사진.png","contentType":"image/jpeg","data":"\(base64(png))"},{"data":"\(base64(jpeg))"}]}
    """

    @Test func decodesAValidJSONBody() throws {
        let draft = try ProductDraft.decode(json: Self.validJSON.bytes)
        #expect(draft.title == "맥북 에어")
        #expect(draft.description == "가벼운 노트북")
        #expect(draft.price == Decimal(string: "16.9"))
        #expect(DecimalText.json(draft.price) == "16.9")
        #expect(draft.discountedPrice == 15)
        #expect(draft.currency == "USD")
        #expect(draft.stock == 1_000_000_000_000)
        #expect(draft.password == "pw")
        #expect(draft.images.map(\.kind) == [.png, .jpeg])
        #expect(draft.images.map(\.filename) == ["내 사진.png", "image-2.jpg"])
        #expect(draft.images[0].data == png)
    }

    @Test func reportsEveryFieldErrorAtOnce() {
        let body = """
        {"title":"","description":42,"price":-1,"discountedPrice":"x","currency":"krw","stock":1.5,
         "images":[{"data":"!!!"},{"data":"\(base64([1, 2, 3]))"},"nope",{"data":"\(base64(png + [UInt8](repeating: 0, count: 400)))"}]}
        """
        do {
            _ = try ProductDraft.decode(json: body.bytes, limits: DraftLimits(maxImageBytes: 100))
            Issue.record("expected a ValidationFailure")
        } catch {
            #expect(error.errors.map(\.field) == [
                "title", "description", "price", "discountedPrice", "currency", "stock", "password",
                "images[0].data", "images[1]", "images[2]", "images[3]",
            ])
            #expect(error.errors[0].message == "title must be 1 to 100 characters long; it has 0.")
            #expect(error.errors[1].message == "description must be a string, not a number.")
            #expect(error.errors[2].message == "price must not be negative.")
            #expect(error.errors[4].message == "currency must be an ISO 4217 currency code such as KRW or USD; \"krw\" is not one.")
            #expect(error.errors[5].message == "stock must be a whole number (64-bit).")
            #expect(error.errors[6].message == "password is required.")
            #expect(error.errors[8].message == "images[1] must be a JPEG or PNG image (judged by its content, not its declared type).")
            #expect(error.errors[10].message == "images[3] is 412 bytes; the limit is 100 bytes.")
        }
    }

    @Test func requiredFieldsAndImageCount() {
        #expect(throws: ValidationFailure([
            FieldError(field: "title", message: "title is required."),
            FieldError(field: "description", message: "description is required."),
            FieldError(field: "price", message: "price is required."),
            FieldError(field: "currency", message: "currency is required."),
            FieldError(field: "stock", message: "stock is required."),
            FieldError(field: "password", message: "password is required."),
            FieldError(field: "images", message: "images is required: 1 to 5 JPEG or PNG files."),
        ])) { try ProductDraft.decode(json: "{}".bytes) }
        let six = String(repeating: "{\"data\":\"\(base64(png))\"},", count: 6).dropLast()
        let body = #"{"title":"t","description":"d","price":1,"currency":"KRW","stock":1,"password":"p","images":[\#(six)]}"#
        #expect(throws: ValidationFailure([FieldError(field: "images", message: "Send 1 to 5 images; got 6.")])) {
            try ProductDraft.decode(json: body.bytes)
        }
    }

    @Test func discountedPriceMustNotExceedPrice() {
        let body = #"{"title":"t","description":"d","price":10,"discountedPrice":10.01,"currency":"KRW","stock":0,"password":"p","images":[{"data":"\#(base64(jpeg))"}]}"#
        #expect(throws: ValidationFailure([FieldError(field: "discountedPrice", message: "discountedPrice (the sale price) must not be above price.")])) {
            try ProductDraft.decode(json: body.bytes)
        }
    }

    @Test func lengthsCountCharactersNotBytes() throws {
        let title = String(repeating: "한", count: 100)
        let body = #"{"title":"\#(title)","description":"d","price":1,"currency":"KRW","stock":0,"password":"p","images":[{"data":"\#(base64(jpeg))"}]}"#
        #expect(try ProductDraft.decode(json: body.bytes).title.count == 100)
        let tooLong = body.replacingOccurrences(of: title, with: title + "한")
        #expect(throws: ValidationFailure.self) { try ProductDraft.decode(json: tooLong.bytes) }
    }

    @Test func notJSONIsOneBodyError() {
        #expect(throws: ValidationFailure([FieldError(field: "body", message: "The body must be a JSON object.")])) {
            try ProductDraft.decode(json: "[1,2]".bytes)
        }
        #expect(throws: ValidationFailure([FieldError(field: "body", message: "The body must be a JSON object.")])) {
            try ProductDraft.decode(json: "{".bytes)
        }
    }

    @Test func decodesMultipartWithCamelCaseFieldsAndImageParts() throws {
        let form = MultipartFormData(parts: [
            .file("images", filename: "사진 1.jpg", contentType: "image/png", data: jpeg),
            .field("title", "팥빙수"), .field("description", "시원한"), .field("price", "16.9"),
            .field("discountedPrice", "12"), .field("currency", "KRW"), .field("stock", "1000000000000"),
            .field("password", "pw"),
            .file("images", filename: "b.png", contentType: "application/octet-stream", data: png),
        ])
        let draft = try ProductDraft.decode(multipart: form.encoded(), contentType: form.contentType)
        #expect(draft.title == "팥빙수")
        #expect(draft.price == Decimal(string: "16.9"))
        #expect(draft.discountedPrice == 12)
        #expect(draft.stock == 1_000_000_000_000)
        #expect(draft.images.map(\.filename) == ["사진 1.jpg", "b.png"])
        #expect(draft.images.map(\.kind) == [.jpeg, .png])
    }

    @Test func multipartTextNumbersUseStrictGrammar() {
        let form = MultipartFormData(parts: [
            .field("title", "t"), .field("description", "d"), .field("price", "12abc"),
            .field("currency", "KRW"), .field("stock", "-1"), .field("password", "p"),
            .file("images", filename: "a.gif", contentType: "image/gif", data: Array("GIF89a".utf8)),
        ])
        #expect(throws: ValidationFailure([
            FieldError(field: "price", message: "price must be a number."),
            FieldError(field: "stock", message: "stock must not be negative."),
            FieldError(field: "images[0]", message: "images[0] must be a JPEG or PNG image (judged by its content, not its declared type)."),
        ])) { try ProductDraft.decode(multipart: form.encoded(), contentType: form.contentType) }
    }

    @Test func brokenMultipartIsOneBodyError() {
        #expect(throws: ValidationFailure([FieldError(field: "body", message: "The multipart body ends before its closing boundary.")])) {
            try ProductDraft.decode(multipart: "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx".bytes, contentType: "multipart/form-data; boundary=b")
        }
    }
}

/// A preparer that records what it was asked: JPEG in, a fixed JPEG out.
private final class RecordingPreparer: UploadImagePreparer, @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [String] = []
    var recorded: [String] { lock.withLock { calls } }

    func prepare(_ data: [UInt8]) -> Result<PreparedImage, UploadImageRefusal> {
        lock.withLock { calls.append("prepare") }
        guard data.first == 0xFF else { return .failure(UploadImageRefusal("is not a photo.")) }
        return .success(PreparedImage(kind: .jpeg, data: [0xFF, 0xD8, 0xFF, 0xD9]))
    }

    func check(_ data: [UInt8]) -> UploadImageRefusal? {
        lock.withLock { calls.append("check") }
        return data.first == 0xFF ? nil : UploadImageRefusal("is not a photo.")
    }
}

extension ProductDraftTests {
    static func body(title: String, images: [[UInt8]]) -> [UInt8] {
        let list = images.map { #"{"filename":"IMG_0001.HEIC","data":"\#(Data($0).base64EncodedString())"}"# }.joined(separator: ",")
        return Array(#"{"title":"\#(title)","description":"d","price":1,"currency":"USD","stock":1,"password":"pw","images":[\#(list)]}"#.utf8)
    }

    /// What the preparer makes is what is sent, named after it.
    @Test func aPreparerMakesWhatIsSent() throws {
        let preparer = RecordingPreparer()
        let draft = try ProductDraft.decode(json: Self.body(title: "t", images: [[0xFF, 1, 2]]), preparer: preparer)
        #expect(draft.images == [ImageUpload(filename: "IMG_0001.jpg", kind: .jpeg, data: [0xFF, 0xD8, 0xFF, 0xD9])])
        #expect(preparer.recorded == ["prepare"])
    }

    /// A request that fails anyway gets the cheap checks only, and still every field error.
    @Test func nothingIsRenderedForARequestThatFails() {
        let preparer = RecordingPreparer()
        #expect(throws: ValidationFailure([
            FieldError(field: "title", message: "title must be 1 to 100 characters long; it has 0."),
            FieldError(field: "images[1]", message: "images[1] is not a photo."),
        ])) {
            try ProductDraft.decode(json: Self.body(title: "", images: [[0xFF], [0x00]]), preparer: preparer)
        }
        #expect(preparer.recorded == ["check", "check"])
        let seven = RecordingPreparer()
        #expect(throws: ValidationFailure.self) {
            try ProductDraft.decode(json: Self.body(title: "t", images: Array(repeating: [0xFF], count: 7)), preparer: seven)
        }
        #expect(seven.recorded == Array(repeating: "check", count: 7))
    }
}
