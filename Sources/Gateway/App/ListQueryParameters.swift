import GatewayModels
import HTTPInterface
import GatewaySupport

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
    /// One pass over the query (the first value of each parameter counts, as on the routed
    /// path).
    static func parseStored(_ request: RequestBytes) -> ListQuery? {
        var page: Int?
        var pageSize: Int?
        var placeholders: Bool?
        var judged = true
        let plain = request.forEachPlainQueryPair { name, value in
            if name.elementsEqual("page".utf8) {
                guard page == nil else { return true }
                page = number(value, in: 1...ListQuery.maxPage)
                judged = page != nil
            } else if name.elementsEqual("pageSize".utf8) {
                guard pageSize == nil else { return true }
                pageSize = number(value, in: 1...ListQuery.maxPageSize)
                judged = pageSize != nil
            } else if name.elementsEqual("include".utf8) {
                guard placeholders == nil else { return true }
                placeholders = value.elementsEqual(IncludeParameter.placeholders.utf8) ? true : nil
                judged = placeholders != nil
            } else if name.elementsEqual("q".utf8) {
                // A search: its normalisation allocates.
                judged = false
            }
            return judged
        }
        guard plain, judged else { return nil }
        return ListQuery(page: page ?? 1, pageSize: pageSize ?? ListQuery.defaultPageSize, includePlaceholders: placeholders ?? false)
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
