import Foundation
import GatewayModels
import GatewaySupport

/// The `--data-file` format: the catalogue as JSON, read once at start (changes are not
/// written back; `GET /__admin/catalogue` returns the current catalogue in this format, to
/// save it by hand).
///
/// ```json
/// {"items": [
///   {"id": 1, "title": "MacBook Pro", "descriptions": "…", "price": 1690, "currency": "USD",
///    "stock": 0, "discounted_price": 1500, "registration_date": 1611523563.7237701,
///    "password": "password", "image_count": 2}
/// ]}
/// ```
///
/// `discounted_price` is optional; `image_count` (1 to 5) generated PNG images are served
/// for the item (uploaded image bytes are not kept in the file). Ids must be positive and
/// unique; new items get ids after the largest. `vendor_id` (the owning ``DemoVendor``'s
/// id, for v2/v2b) is optional: 1 when absent, and written last, only when it is not 1.
/// `photo` (optional, written only when present) makes the item's first image a photo-sized
/// picture of that ``DemoPhoto`` style (`landscape`, `rotatedPortrait`, `transparent`,
/// `panorama`) instead of a small PNG.
public enum DataFile {
    /// The items in `bytes`.
    /// - Throws: ``DataFileError`` naming the first problem.
    public static func decode(_ bytes: [UInt8]) throws(DataFileError) -> [DemoItem] {
        let items: [DemoItem]
        do {
            let root = try JSONObjectReader(try JSONParser.parse(bytes))
            items = try root.objects("items") { (reader: JSONObjectReader) throws(JSONShapeError) -> DemoItem in
                let imageCount = try reader.int64("image_count")
                guard (1...5).contains(imageCount) else {
                    throw JSONShapeError(path: "\(reader.path).image_count", reason: "expected 1 to 5")
                }
                let id = try reader.int64("id")
                guard id > 0 else { throw JSONShapeError(path: "\(reader.path).id", reason: "expected a positive integer") }
                let vendorID = try reader.int64IfPresent("vendor_id") ?? 1
                guard vendorID > 0 else {
                    throw JSONShapeError(path: "\(reader.path).vendor_id", reason: "expected a positive integer")
                }
                var images = Array(repeating: DemoImage.generated, count: Int(imageCount))
                if let name = try reader.stringIfPresent("photo") {
                    guard let photo = DemoPhoto(rawValue: name) else {
                        throw JSONShapeError(
                            path: "\(reader.path).photo", reason: "expected one of \(DemoPhoto.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    images[0] = .photo(photo)
                }
                return DemoItem(
                    id: id, title: try reader.string("title"), descriptions: try reader.string("descriptions"),
                    price: try reader.decimal("price"), currency: try reader.string("currency"), stock: try reader.int64("stock"),
                    discountedPrice: try reader.decimalIfPresent("discounted_price"),
                    registrationDate: try reader.decimal("registration_date"), password: try reader.string("password"),
                    images: images, vendorID: vendorID)
            }
        } catch let error as JSONParser.Failure {
            throw DataFileError(description: error.description)
        } catch let error as JSONShapeError {
            throw DataFileError(description: error.description)
        } catch {
            throw DataFileError(description: "\(error)")
        }
        var seen = Set<Int64>()
        for item in items where !seen.insert(item.id).inserted {
            throw DataFileError(description: "$.items: id \(item.id) appears twice")
        }
        return items
    }

    /// Reads and decodes the file at `path`.
    public static func load(path: String) throws(DataFileError) -> [DemoItem] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DataFileError(description: "cannot read data file \(path)")
        }
        do {
            return try decode([UInt8](data))
        } catch {
            throw DataFileError(description: "\(path): \(error.description)")
        }
    }

    /// `items` in this format, keys in the order above.
    public static func encode(_ items: [DemoItem]) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 * max(1, items.count))
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in items {
            writer.beginObject()
            writer.key("id"); writer.integer(item.id)
            writer.key("title"); writer.string(item.title)
            writer.key("descriptions"); writer.string(item.descriptions)
            writer.key("price"); writer.decimal(item.price)
            writer.key("currency"); writer.string(item.currency)
            writer.key("stock"); writer.integer(item.stock)
            if let discountedPrice = item.discountedPrice { writer.key("discounted_price"); writer.decimal(discountedPrice) }
            writer.key("registration_date"); writer.decimal(item.registrationDate)
            writer.key("password"); writer.string(item.password)
            writer.key("image_count"); writer.integer(Int64(item.images.count))
            if item.vendorID != 1 { writer.key("vendor_id"); writer.integer(item.vendorID) }
            if case .photo(let photo) = item.images.first { writer.key("photo"); writer.string(photo.rawValue) }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
