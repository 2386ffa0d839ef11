import CNghttp2

/// nghttp2's callbacks and options for a server's HTTP/2 sessions, made once per server:
/// `nghttp2_session_server_new2` copies both, so one template serves every connection of
/// every loop. Immutable after init; any thread.
final class HTTP2SessionTemplate: @unchecked Sendable {
    /// Owned; freed in deinit.
    let callbacks: OpaquePointer
    /// Owned; freed in deinit.
    let option: OpaquePointer

    init?(configuration: HTTP2Configuration) {
        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        guard nghttp2_option_new(&option) == 0, let option else {
            nghttp2_session_callbacks_del(callbacks)
            return nil
        }
        self.callbacks = callbacks
        self.option = option
        // The library's checks of RFC 9113's messaging rules stay on (no
        // nghttp2_option_set_no_http_messaging); the gateway adds the bounds it leaves out.
        nghttp2_option_set_stream_reset_rate_limit(option, UInt64(configuration.streamResetBurst), UInt64(configuration.streamResetRate))
        nghttp2_option_set_max_continuations(option, configuration.maxContinuations)
        // Each callback finds its connection from `user_data`: the HTTP2Connection, unretained
        // (it deletes the session before it goes; see HTTP2Connection.init).
        nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks) { _, header, user in
            HTTP2Connection.from(user).frameBegan(header!.pointee)
        }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            HTTP2Connection.from(user).headersBegan(frame!)
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            HTTP2Connection.from(user).header(
                frame!, name: UnsafeRawBufferPointer(start: name, count: nameLength),
                value: UnsafeRawBufferPointer(start: value, count: valueLength))
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            HTTP2Connection.from(user).frameReceived(frame!)
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            HTTP2Connection.from(user).dataReceived(streamID, UnsafeRawBufferPointer(start: data, count: length))
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            HTTP2Connection.from(user).frameSent(frame!)
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, user in
            HTTP2Connection.from(user).streamClosed(streamID)
        }
        nghttp2_session_callbacks_set_send_data_callback(callbacks) { _, frame, header, length, _, user in
            HTTP2Connection.from(user).sendData(frame!, header: UnsafeRawBufferPointer(start: header, count: 9), length: length)
        }
    }

    deinit {
        nghttp2_session_callbacks_del(callbacks)
        nghttp2_option_del(option)
    }

    /// The answer's body for DATA frames, sent without copying: how much the next frame
    /// carries. The bytes go out in `send_data_callback` (`HTTP2Connection.sendData`).
    static let readAnswerBody: nghttp2_data_source_read_callback = { _, streamID, _, length, flags, _, user in
        HTTP2Connection.from(user).answerBodyLength(streamID, max: length, flags: flags!)
    }
}
