import Foundation
import GatewaySupport

/// Reads and checks the fields of a ``DraftInput`` one by one, collecting every
/// ``FieldError`` instead of stopping at the first.
///
/// Each reader returns the value, or `nil` when the field is absent or wrong (and then, if it
/// was required or wrong, an error has been recorded).
struct DraftFieldReader {
    let input: DraftInput
    let limits: DraftLimits
    /// Makes each upload fit the origin; nil: uploads are only checked.
    let preparer: (any UploadImagePreparer)?
    private(set) var errors: [FieldError]

    init(input: DraftInput, limits: DraftLimits, preparer: (any UploadImagePreparer)? = nil) {
        self.input = input
        self.limits = limits
        self.preparer = preparer
        errors = input.errors
    }

    mutating func fail(_ field: String, _ message: String) {
        errors.append(FieldError(field: field, message: message))
    }

    /// A string whose length in characters is within `length`.
    mutating func string(_ field: String, required: Bool, length: ClosedRange<Int>) -> String? {
        guard let value = present(field, required: required) else { return nil }
        let text: String
        switch value {
        case .text(let string), .json(.string(let string)): text = string
        case .json(let other):
            fail(field, "\(field) must be a string, not \(other.typeDescription).")
            return nil
        }
        // Counted in code points, as JSON Schema's minLength and maxLength count them.
        let count = text.unicodeScalars.count
        guard length.contains(count) else {
            if count == 0, length.upperBound == .max {
                fail(field, "\(field) must not be empty.")
            } else {
                fail(field, "\(field) must be \(length.lowerBound) to \(length.upperBound) characters long; it has \(count).")
            }
            return nil
        }
        return text
    }

    /// A non-negative decimal amount, exact (`16.9`, never through `Double`), at most
    /// ``maxAmount``.
    /// With `nullable`, JSON `null` counts as absent (the contract's `[number, null]`).
    mutating func amount(_ field: String, required: Bool, nullable: Bool = false) -> Decimal? {
        if nullable, case .json(.null)? = input.fields[field] { return nil }
        guard let amount = nonNegative(field, required: required, mustBe: "a number", { $0 }) else { return nil }
        guard amount <= Self.maxAmount else {
            fail(field, "\(field) must be at most 1000000000000000 (10^15).")
            return nil
        }
        return amount
    }

    /// The largest price a write may set (`maximum` of `WriteMoney` in openapi.yaml).
    static let maxAmount = Decimal(string: "1000000000000000")!

    /// A non-negative whole number that fits 64 bits.
    mutating func count(_ field: String, required: Bool) -> Int64? {
        nonNegative(field, required: required, mustBe: "a whole number (64-bit)", DecimalText.int64)
    }

    /// A number (JSON number, or strict number text in multipart) converted by `convert`, and
    /// not negative.
    private mutating func nonNegative<T: Comparable & ExpressibleByIntegerLiteral>(
        _ field: String, required: Bool, mustBe kind: String, _ convert: (Decimal) -> T?
    ) -> T? {
        guard let value = present(field, required: required) else { return nil }
        let decimal: Decimal?
        switch value {
        case .json(.number(let number)): decimal = number
        case .text(let text): decimal = DecimalText.parse(text.trimmingCharacters(in: .whitespaces))
        case .json: decimal = nil
        }
        if let decimal, decimal.isNaN {
            fail(field, "\(field) is out of range.")
            return nil
        }
        guard let number = decimal.flatMap(convert) else {
            fail(field, "\(field) must be \(kind).")
            return nil
        }
        guard number >= 0 else {
            fail(field, "\(field) must not be negative.")
            return nil
        }
        return number
    }

    /// An ISO 4217 code from ``ISO4217``.
    mutating func currency(_ field: String, required: Bool) -> String? {
        guard let code = string(field, required: required, length: 1...Int.max) else { return nil }
        guard ISO4217.isValid(code) else {
            fail(field, "\(field) must be an ISO 4217 currency code such as KRW or USD; \"\(code)\" is not one.")
            return nil
        }
        return code
    }

    /// The images, each checked: valid data, JPEG or PNG by magic bytes, within the size limit;
    /// their number within `count`. With a ``preparer``, each is what it made of the upload
    /// instead (its refusal a field error), named with the extension of what it became, when
    /// no error was found before (else only its cheap checks run). `nil` when none were sent
    /// (an error if `count` needs some).
    mutating func images(count: ClosedRange<Int>, required: Bool = true) -> [ImageUpload]? {
        guard let raws = input.images else {
            if required { fail("images", "images is required: \(count.lowerBound) to \(count.upperBound) JPEG or PNG files.") }
            return nil
        }
        if !count.contains(raws.count) {
            fail("images", "Send \(count.lowerBound) to \(count.upperBound) images; got \(raws.count).")
        }
        // Rendering is the costly part: only for a request that can still succeed (images are
        // read last); any other gets the cheap checks, and every field error all the same.
        let render = errors.isEmpty
        var uploads: [ImageUpload] = []
        for (index, raw) in raws.enumerated() {
            let field = "images[\(index)]"
            if let error = raw.error { errors.append(error); continue }
            guard let data = raw.data, !data.isEmpty else { fail(field, "\(field) is empty."); continue }
            if let preparer, !render {
                if let refusal = preparer.check(data) { fail(field, "\(field) \(refusal.message)") }
                continue
            }
            if let preparer {
                switch preparer.prepare(data) {
                case .success(let prepared):
                    uploads.append(ImageUpload(filename: Self.filename(raw.filename, index: index, kind: prepared.kind), kind: prepared.kind, data: prepared.data))
                case .failure(let refusal):
                    fail(field, "\(field) \(refusal.message)")
                }
                continue
            }
            guard let kind = ImageKind(magic: data) else {
                fail(field, "\(field) must be a JPEG or PNG image (judged by its content, not its declared type).")
                continue
            }
            guard data.count <= limits.maxImageBytes else {
                fail(field, "\(field) is \(data.count) bytes; the limit is \(limits.maxImageBytes) bytes.")
                continue
            }
            let name = raw.filename.flatMap { $0.isEmpty ? nil : $0 } ?? "image-\(index + 1).\(kind.fileExtension)"
            uploads.append(ImageUpload(filename: name, kind: kind, data: data))
        }
        return uploads
    }

    /// The client's file name with the extension of `kind` (`IMG_0001.HEIC` → `IMG_0001.jpg`),
    /// or `image-N.jpg`/`.png` when it sent none.
    static func filename(_ sent: String?, index: Int, kind: ImageKind) -> String {
        guard let sent, !sent.isEmpty else { return "image-\(index + 1).\(kind.fileExtension)" }
        let stem = sent.lastIndex(of: ".").map { sent[..<$0] }.flatMap { $0.isEmpty ? nil : $0 } ?? Substring(sent)
        return stem + "." + kind.fileExtension
    }

    /// The field's value; a JSON `null` is refused here (nullable fields are handled before).
    private mutating func present(_ field: String, required: Bool) -> DraftInput.Value? {
        guard let value = input.fields[field] else {
            if required { fail(field, "\(field) is required.") }
            return nil
        }
        if case .json(.null) = value {
            fail(field, "\(field) must not be null\(required ? "" : "; leave it out instead").")
            return nil
        }
        return value
    }
}
