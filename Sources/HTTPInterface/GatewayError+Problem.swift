import GatewaySupport

extension GatewayError {
    /// The problem+json response for this error, carrying `requestId` so a client can quote
    /// it to an operator. The body is the contract's `ProblemDetails`.
    public func response(requestID: String) -> GatewayResponse {
        let problem = ProblemDetails(
            type: type, title: title, status: status, detail: detail, requestId: requestID,
            errors: fieldErrors.isEmpty ? nil : fieldErrors)
        var headers = self.headers
        headers.set("Content-Type", Self.problemContentType)
        return GatewayResponse(status: status, headers: headers, body: problem.jsonBytes(), cacheOutcome: cacheOutcome)
    }
}
