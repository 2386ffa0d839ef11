// What one nghttp2 server session keeps allocated while its connection idles: the blocks live
// after three requests (with the fields a phone sends) were answered and their streams closed,
// by size, counted through an nghttp2_mem of its own (the sizes nghttp2 asks for, before any
// size class). For docs/performance.md's idle HTTP/2 figures:
//   gcc -O1 -Wall Benchmarks/nghttp2-session.c -lnghttp2 -o /tmp/nghttp2-session && /tmp/nghttp2-session
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIVE 4096
static void *live_blocks[MAX_LIVE];
static size_t live_sizes[MAX_LIVE];

static void *counted_malloc(size_t size, void *user) {
    (void)user;
    void *block = malloc(size);
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live_blocks[i] == NULL) {
            live_blocks[i] = block;
            live_sizes[i] = size;
            break;
        }
    }
    return block;
}

static size_t forget(void *block) {
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live_blocks[i] == block) {
            live_blocks[i] = NULL;
            return live_sizes[i];
        }
    }
    return 0;
}

static void counted_free(void *block, void *user) {
    (void)user;
    if (block == NULL) return;
    forget(block);
    free(block);
}

static void *counted_calloc(size_t count, size_t size, void *user) {
    void *block = counted_malloc(count * size, user);
    memset(block, 0, count * size);
    return block;
}

static void *counted_realloc(void *block, size_t size, void *user) {
    void *moved = counted_malloc(size, user);
    if (block != NULL) {
        size_t old = forget(block);
        memcpy(moved, block, old < size ? old : size);
        free(block);
    }
    return moved;
}

static ssize_t body(nghttp2_session *session, int32_t stream, uint8_t *buffer, size_t length, uint32_t *flags,
                    nghttp2_data_source *source, void *user) {
    (void)session, (void)stream, (void)length, (void)source, (void)user;
    memcpy(buffer, "{}", 2);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 2;
}

#define NV(name, value) {(uint8_t *)(name), (uint8_t *)(value), sizeof(name) - 1, sizeof(value) - 1, NGHTTP2_NV_FLAG_NONE}

// Answers each request as the gateway answers a cached detail (its fields, a short body).
static int frame_received(nghttp2_session *session, const nghttp2_frame *frame, void *user) {
    (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS || !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) return 0;
    nghttp2_nv fields[] = {
        NV(":status", "200"), NV("content-type", "application/json"), NV("etag", "\"28653b740240d02c\""),
        NV("cache-control", "public, max-age=3600"), NV("cache-status", "open-market-gateway; hit; ttl=3599"),
        NV("x-request-id", "4bf92f3577b34da6a3ce929d0e0e4736"), NV("content-length", "2"),
    };
    nghttp2_data_provider provider = {.read_callback = body};
    nghttp2_submit_response(session, frame->hd.stream_id, fields, sizeof fields / sizeof fields[0], &provider);
    return 0;
}

int main(void) {
    nghttp2_mem mem = {NULL, counted_malloc, counted_free, counted_calloc, counted_realloc};
    nghttp2_session_callbacks *callbacks;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, frame_received);
    nghttp2_session *server;
    nghttp2_session_server_new3(&server, callbacks, NULL, NULL, &mem);
    nghttp2_session_callbacks *client_callbacks;
    nghttp2_session_callbacks_new(&client_callbacks);
    nghttp2_session *client;
    nghttp2_session_client_new(&client, client_callbacks, NULL);
    nghttp2_submit_settings(client, NGHTTP2_FLAG_NONE, NULL, 0);
    nghttp2_submit_settings(server, NGHTTP2_FLAG_NONE, NULL, 0);
    for (int i = 0; i < 3; i++) {
        nghttp2_nv fields[] = {
            NV(":method", "GET"), NV(":scheme", "https"), NV(":authority", "gateway.example.com"),
            NV(":path", "/v1/products/1"), NV("user-agent", "OpenMarket/1.0 CFNetwork/1490.0.4 Darwin/23.2.0"),
            NV("accept", "application/json"), NV("accept-language", "ko-KR"), NV("accept-encoding", "gzip, deflate, br"),
        };
        nghttp2_submit_request(client, NULL, fields, sizeof fields / sizeof fields[0], NULL, NULL);
    }
    for (int round = 0; round < 10; round++) {
        const uint8_t *data;
        ssize_t count;
        while ((count = nghttp2_session_mem_send(client, &data)) > 0) nghttp2_session_mem_recv(server, data, (size_t)count);
        while ((count = nghttp2_session_mem_send(server, &data)) > 0) nghttp2_session_mem_recv(client, data, (size_t)count);
    }
    size_t total = 0;
    int blocks = 0;
    printf("nghttp2 %s, an idle server session after 3 streams; live blocks (bytes asked for):\n", nghttp2_version(0)->version_str);
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live_blocks[i] == NULL) continue;
        printf("  %zu\n", live_sizes[i]);
        total += live_sizes[i];
        blocks++;
    }
    printf("total %zu bytes in %d blocks\n", total, blocks);
    return 0;
}
