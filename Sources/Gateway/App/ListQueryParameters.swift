import GatewayModels

/// Reads `page`, `pageSize` and `q` of `GET /v1/products` into a ``ListQuery``.
///
/// Pure; any thread. The routed path reports every invalid parameter at once; the stored-answer
/// path reads plain bytes only and declines whatever needs more (it then takes the routed path).
enum ListQueryParameters {
    /// The query, or every field error (400 problem+json with one entry per bad parameter).
    static func parse(_ request: GatewayRequest) -> Result<ListQuery, GatewayError> {
        var errors: [FieldError] = []
        var query = ListQuery()
        if let text = request.queryValue("page") {
            if let page = number(text, in: 1...ListQuery.maxPage) { query.page = page } else {
                errors.append(FieldError(field: "page", message: "must be a whole number from 1 to \(ListQuery.maxPage)."))
            }
        }
        if let text = request.queryValue("pageSize") {
            if let size = number(text, in: 1...ListQuery.maxPageSize) { query.pageSize = size } else {
                errors.append(FieldError(field: "pageSize", message: "must be a whole number from 1 to \(ListQuery.maxPageSize)."))
            }
        }
        if let text = request.queryValue("q") {
            if let search = ListQuery.normalisedSearch(text) { query.search = search } else {
                errors.append(FieldError(
                    field: "q",
                    message: "must be 1 to \(ListQuery.maxSearchCharacters) characters, not all white space, with no control characters."))
            }
        }
        return errors.isEmpty ? .success(query) : .failure(.invalidFields(errors))
    }

    /// The query from plain bytes, or nil when the stored path cannot judge it: an encoded
    /// parameter, a search (its normalisation allocates), or a value the routed path refuses.
    static func parseStored(_ request: RequestBytes) -> ListQuery? {
        guard case .absent = request.queryValue("q") else { return nil }
        var query = ListQuery()
        switch request.queryValue("page") {
        case .absent: break
        case .plain(let bytes):
            guard let page = number(bytes, in: 1...ListQuery.maxPage) else { return nil }
            query.page = page
        case .encoded: return nil
        }
        switch request.queryValue("pageSize") {
        case .absent: break
        case .plain(let bytes):
            guard let size = number(bytes, in: 1...ListQuery.maxPageSize) else { return nil }
            query.pageSize = size
        case .encoded: return nil
        }
        return query
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
