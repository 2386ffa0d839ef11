import Foundation
import GatewayModels

/// The catalogue a demo origin starts with, the same on every run: the 20 items of the v1
/// sample page (ids 1-20, as captured, with item 1's description from the detail sample)
/// followed by 107 generated items (ids 21-127), 127 in all: six full pages and a seventh
/// of 7, so page 8 is the first empty one.
///
/// The generated items mix Korean and English titles; KRW, USD (with cents), JPY and BHD
/// (three decimals); a discount on every fourth; sold-out items; stocks up to 10^12; and one
/// to five images each. Every seeded item's password is ``password``. Items belong to
/// vendor 1 except every fifth id (5, 10, 15, …), which belongs to vendor 2 (``vendorID(for:)``).
public enum CatalogueSeed {
    /// The password of every seeded item.
    public static let password = "password"
    /// Items generated after the 20 sample items.
    static let generatedCount = 107

    /// The vendor of seeded item `id`: 2 for multiples of 5 (25 of the 127), 1 for the rest.
    public static func vendorID(for id: Int64) -> Int64 {
        id % 5 == 0 ? 2 : 1
    }

    /// All seeded items, ascending by id.
    public static func items() -> [DemoItem] {
        sampleItems() + (0..<generatedCount).map(generatedItem)
    }

    /// The v1 sample page's items with generated images (one per sample thumbnail).
    static func sampleItems() -> [DemoItem] {
        guard let page = try? V1ItemsPage(json: Array(SeedSamples.itemsPage.utf8)),
            let detail = try? V1Item(json: Array(SeedSamples.item.utf8))
        else { preconditionFailure("the embedded v1 samples parse (checked by the tests)") }
        return page.items.map { sample in
            DemoItem(
                id: sample.id, title: sample.title,
                descriptions: sample.id == detail.id ? detail.descriptions ?? "" : "\(sample.title): Open Market 데모 카탈로그의 상품입니다.",
                price: sample.price, currency: sample.currency, stock: sample.stock, discountedPrice: sample.discountedPrice,
                registrationDate: sample.registrationDate, password: password,
                images: Array(repeating: .generated, count: max(1, sample.thumbnails.count)), vendorID: vendorID(for: sample.id))
        }
    }

    /// Items whose first picture is photo-sized, and how: every kind the gateway's sizes and
    /// placeholders must get right (EXIF-rotated JPEGs, a PNG with alpha, sources of 200 KB and
    /// more). Generated items (the samples stay as captured): the first of v1's page 2 and of
    /// v2/v2b's page 1 (newest first).
    public static let photos: [Int64: DemoPhoto] = [
        21: .landscape, 22: .rotatedPortrait, 23: .transparent, 24: .panorama,
        127: .landscape, 126: .rotatedPortrait, 125: .transparent, 124: .panorama,
    ]

    private static func images(id: Int64, count: Int) -> [DemoImage] {
        var images = Array(repeating: DemoImage.generated, count: count)
        if let photo = photos[id] { images[0] = .photo(photo) }
        return images
    }

    private static let koreanNames = [
        "무선 키보드", "기계식 키보드", "블루투스 스피커", "노이즈 캔슬링 헤드폰", "스마트 워치", "보조 배터리", "휴대용 선풍기",
        "캠핑 의자", "전기 포트", "핸드드립 커피 세트", "가죽 지갑", "여행용 캐리어", "등산화", "요가 매트", "한우 선물 세트",
    ]
    private static let englishNames = [
        "Wireless Mouse", "USB-C Hub", "Desk Lamp", "Mechanical Pencil", "Noise Cancelling Earbuds", "Standing Desk",
        "Espresso Machine", "Running Shoes", "Rain Jacket", "Water Bottle", "Phone Case", "Laptop Stand",
    ]

    /// Generated item number `index` (0-based; id 21 + index).
    static func generatedItem(_ index: Int) -> DemoItem {
        let id = Int64(21 + index)
        let korean = index % 3 != 2
        let names = korean ? koreanNames : englishNames
        let name = names[(index * 7) % names.count]
        let generation = index / names.count + 1
        let title = korean ? "\(name) \(generation)세대" : "\(name) Gen \(generation)"
        let descriptions =
            korean
            ? "\(title): 오픈 마켓 데모 상품입니다. 매일 쓰기 좋은 튼튼한 제품입니다."
            : "\(title): a demo product of the Open Market catalogue, built to last."
        let currency = ["KRW", "KRW", "KRW", "KRW", "USD", "KRW", "USD", "JPY", "KRW", "BHD"][index % 10]
        let price = price(index: index, currency: currency)
        let discounted = index % 4 == 1 ? salePrice(price, currency: currency) : nil
        let stock: Int64 =
            index % 7 == 3 ? 0 : index % 13 == 5 ? 1_000_000_000_000 : Int64((index * 37) % 500 + 1)
        let fraction = (index * 7919 + 123_457) % 1_000_000
        let seconds = 1_622_505_600 + index * 86_461
        let registration = Decimal(sign: .plus, exponent: -6, significand: Decimal(Int64(seconds) * 1_000_000 + Int64(fraction)))
        return DemoItem(
            id: id, title: title, descriptions: descriptions, price: price, currency: currency, stock: stock,
            discountedPrice: discounted, registrationDate: registration, password: password,
            images: images(id: id, count: index % 5 + 1), vendorID: vendorID(for: id))
    }

    /// A price in the currency's own range and precision.
    private static func price(index: Int, currency: String) -> Decimal {
        let step = (index * 7919) % 97 + 1
        switch currency {
        case "USD": return Decimal(step * 10) + (index % 2 == 0 ? Decimal(string: "0.99")! : 0)
        case "JPY": return Decimal(step * 500)
        case "BHD": return Decimal(sign: .plus, exponent: -3, significand: Decimal(step * 1125))
        default: return Decimal(step * 5000)
        }
    }

    /// 80% of `price`, rounded down to the currency's minor unit (whole units for KRW, JPY).
    private static func salePrice(_ price: Decimal, currency: String) -> Decimal {
        var sale = price * Decimal(string: "0.8")!
        var rounded = Decimal()
        NSDecimalRound(&rounded, &sale, ISO4217.minorUnits[currency] ?? 0, .down)
        return rounded
    }
}
