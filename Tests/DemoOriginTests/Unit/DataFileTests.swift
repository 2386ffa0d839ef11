@testable import DemoOrigin
import Foundation
import Testing

@Suite struct DataFileTests {
    @Test func roundTripsTheSeed() throws {
        let seed = CatalogueSeed.items()
        #expect(try DataFile.decode(DataFile.encode(seed)) == seed)
    }

    @Test func writesTheDocumentedShape() {
        let item = DemoItem(
            id: 9, title: "Pen", descriptions: "A pen", price: Decimal(string: "1.5")!, currency: "USD", stock: 3,
            discountedPrice: 1, registrationDate: Decimal(string: "1611523563.5")!, password: "pw", images: [.generated, .generated])
        #expect(String(decoding: DataFile.encode([item]), as: UTF8.self) == #"{"items":[{"id":9,"title":"Pen","descriptions":"A pen","price":1.5,"currency":"USD","stock":3,"discounted_price":1,"registration_date":1611523563.5,"password":"pw","image_count":2}]}"#)
    }

    @Test func vendorIDIsOptionalAndWrittenOnlyWhenNotOne() throws {
        let item = #"{"id":1,"title":"a","descriptions":"b","price":1,"currency":"KRW","stock":1,"registration_date":1.5,"password":"p","image_count":1}"#
        #expect(try DataFile.decode(Array(#"{"items":[\#(item)]}"#.utf8)).map(\.vendorID) == [1])
        let second = item.replacingOccurrences(of: #""image_count":1"#, with: #""image_count":1,"vendor_id":2"#)
        let decoded = try DataFile.decode(Array(#"{"items":[\#(second)]}"#.utf8))
        #expect(decoded.map(\.vendorID) == [2])
        #expect(String(decoding: DataFile.encode(decoded), as: UTF8.self) == #"{"items":[\#(second)]}"#)
        let zero = item.replacingOccurrences(of: #""image_count":1"#, with: #""image_count":1,"vendor_id":0"#)
        #expect(throws: DataFileError(description: "$.items[0].vendor_id: expected a positive integer")) {
            try DataFile.decode(Array(#"{"items":[\#(zero)]}"#.utf8))
        }
    }

    @Test func namesTheFirstProblem() {
        let item = #"{"id":1,"title":"a","descriptions":"b","price":1,"currency":"KRW","stock":1,"registration_date":1.5,"password":"p","image_count":1}"#
        let cases: [(String, String)] = [
            ("{", "invalid JSON at byte 1: expected a key"),
            (#"{"items":[\#(item),\#(item)]}"#, "$.items: id 1 appears twice"),
            (#"{"items":[\#(item.replacingOccurrences(of: #""image_count":1"#, with: #""image_count":6"#))]}"#, "$.items[0].image_count: expected 1 to 5"),
            (#"{"items":[\#(item.replacingOccurrences(of: #""title":"a","#, with: ""))]}"#, "$.items[0].title: missing"),
            (#"{"items":[\#(item.replacingOccurrences(of: #""id":1"#, with: #""id":0"#))]}"#, "$.items[0].id: expected a positive integer"),
        ]
        for (text, message) in cases {
            #expect(throws: DataFileError(description: message), "\(text)") { try DataFile.decode(Array(text.utf8)) }
        }
    }
}
