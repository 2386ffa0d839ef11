import CEvent
import HTTPInterface

/// Reads what arrived with an `evhttp_request` (a client's request on the server side, or
/// the origin's response on the client side) into plain values. On the loop thread that
/// owns the request.
enum EvhttpInput {
    /// The input header fields, in order, duplicates kept.
    static func headers(of request: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var entry = evhttp_request_get_input_headers(request)?.pointee.tqh_first
        while let field = entry {
            if let key = field.pointee.key, let value = field.pointee.value {
                headers.add(String(cString: key), String(cString: value))
            }
            entry = field.pointee.next.tqe_next
        }
        return headers
    }

    /// The whole input body, drained from libevent's buffer.
    static func body(of request: OpaquePointer) -> [UInt8] {
        guard let buffer = evhttp_request_get_input_buffer(request) else { return [] }
        let length = evbuffer_get_length(buffer)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { bytes, count in
            count = Int(evbuffer_remove(buffer, bytes.baseAddress, length))
        }
    }
}
