/// The contract's `display.stock`: how many are left, in the client's language.
///
/// - ko: `잔여수량: 12`, and `품절` when sold out;
/// - en (and any other language): `12 in stock`, and `Sold out`.
///
/// The count uses the locale's grouping (`잔여수량: 1,000,000,000,000`). A stock of 0 or less is
/// sold out.
public enum StockLabel {
    /// The label for `stock` in `locale`. Thread-safe.
    public static func text(stock: Int64, locale: ClientLocale) -> String {
        let korean = locale.languageCode == "ko"
        guard stock > 0 else { return korean ? "품절" : "Sold out" }
        let count = DisplayFormatters.count(stock, locale: locale)
        return korean ? "잔여수량: \(count)" : "\(count) in stock"
    }
}
