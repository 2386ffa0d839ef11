extension GatewayError {
    /// The problem+json response for this error, carrying `requestId` so a client can quote
    /// it to an operator.
    public func response(requestID: String) -> GatewayResponse {
        var json = JSONWriter()
        json.beginObject()
        json.member("type", string: type)
        json.member("title", string: title)
        json.member("status", raw: String(status))
        json.member("detail", string: detail)
        json.member("requestId", string: requestID)
        if !fieldErrors.isEmpty {
            json.key("errors")
            json.beginArray()
            for error in fieldErrors {
                json.beginObject()
                json.member("field", string: error.field)
                json.member("message", string: error.message)
                json.endObject()
            }
            json.endArray()
        }
        json.endObject()
        var headers = self.headers
        headers.set("Content-Type", "application/problem+json")
        return GatewayResponse(status: status, headers: headers, body: json.bytes)
    }
}
