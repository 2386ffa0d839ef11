import GatewayModels
import HTTPInterface

/// Reads `page`, `pageSize`, `q` and `include` of `GET /v1/products` into a ``ListQuery``.
///
/// Pure; any thread. The routed path reports every invalid parameter at once; the stored-answer
/// path reads plain bytes only and declines whatever needs more (it then takes the routed path).
enum ListQueryParameters {
    /// The query, or every field error (400 problem+json with one entry per bad parameter).
    static func parse(_ request: GatewayRequest) -> Result<ListQuery, GatewayError> {
        var errors: [FieldError] = []
        var query = ListQuery()
        func read(_ name: String, in range: ClosedRange<Int>, into value: inout Int) {
            guard let text = request.queryValue(name) else { return }
            guard let number = number(text, in: range) else {
                return errors.append(FieldError(field: name, message: "must be a whole number from 1 to \(range.upperBound)."))
            }
            value = number
        }
        read("page", in: 1...ListQuery.maxPage, into: &query.page)
        read("pageSize", in: 1...ListQuery.maxPageSize, into: &query.pageSize)
        if let text = request.queryValue("q") {
            if let search = ListQuery.normalisedSearch(text) { query.search = search } else {
                errors.append(FieldError(
                    field: "q",
                    message: "must be 1 to \(ListQuery.maxSearchCharacters) characters, not all white space, with no control characters."))
            }
        }
        if let placeholders = IncludeParameter.parse(request) {
            query.includePlaceholders = placeholders
        } else {
            errors.append(IncludeParameter.invalid)
        }
        return errors.isEmpty ? .success(query) : .failure(.invalidFields(errors))
    }

    /// The query from plain bytes, or nil when the stored path cannot judge it: an encoded
    /// parameter, a search (its normalisation allocates), or a value the routed path refuses.
    static func parseStored(_ request: RequestBytes) -> ListQuery? {
        guard case .absent = request.queryValue("q") else { return nil }
        guard let page = storedNumber(request.queryValue("page"), in: 1...ListQuery.maxPage, absent: 1),
            let pageSize = storedNumber(request.queryValue("pageSize"), in: 1...ListQuery.maxPageSize, absent: ListQuery.defaultPageSize),
            let placeholders = IncludeParameter.parseStored(request)
        else { return nil }
        return ListQuery(page: page, pageSize: pageSize, includePlaceholders: placeholders)
    }

    /// A stored-path query value as a number in `range`; `absent` when not sent; nil when it
    /// is encoded or refused.
    private static func storedNumber(_ value: RequestBytes.QueryValue, in range: ClosedRange<Int>, absent: Int) -> Int? {
        switch value {
        case .absent: absent
        case .plain(let bytes): number(bytes, in: range)
        case .encoded: nil
        }
    }

    /// Plain ASCII digits (at most 5, no sign) within `range`.
    static func number(_ bytes: UnsafeRawBufferPointer, in range: ClosedRange<Int>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 5 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return range.contains(value) ? value : nil
    }

    private static func number(_ text: String, in range: ClosedRange<Int>) -> Int? {
        var text = text
        return text.withUTF8 { number(UnsafeRawBufferPointer($0), in: range) }
    }
}
