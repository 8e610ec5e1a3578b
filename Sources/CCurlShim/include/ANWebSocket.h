/*
 * ANWebSocket: the C pieces of AsyncNetworking's WebSocket client, resolved at run time.
 *
 * 1. permessage-deflate (RFC 7692): raw deflate/inflate streams over zlib, opened with
 *    dlopen("libz.so.1") once, by the loader ANContentDecoder shares (ANZlib.c), never closed.
 * 2. Raw I/O on a libcurl CONNECT_ONLY connection: curl_easy_perform, curl_easy_send,
 *    curl_easy_recv and CURLINFO_ACTIVESOCKET, looked up with dlsym in "libcurl.so.4" (the
 *    library CCurlShim already loads; call ancurl_load() first).
 */
#ifndef ANWEBSOCKET_H
#define ANWEBSOCKET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- permessage-deflate ---- */

/* 1 when libz could be loaded with every symbol needed here, else 0. */
int an_ws_zlib_available(void);

/* A raw deflate stream (no zlib header) with a window of 2^window_bits bytes (9...15), or NULL. */
void *an_ws_deflate_create(int window_bits);
/* A raw inflate stream accepting windows up to 2^window_bits bytes (8...15), or NULL. */
void *an_ws_inflate_create(int window_bits);
void an_ws_deflate_free(void *stream);
void an_ws_inflate_free(void *stream);
int an_ws_deflate_reset(void *stream);
int an_ws_inflate_reset(void *stream);

/* One deflate call with Z_SYNC_FLUSH (flush = 1) or Z_NO_FLUSH (flush = 0): consumes from
   `input`, writes at most `capacity` bytes to `output`. Returns 0 (ok), 1 (no progress was
   possible: Z_BUF_ERROR) or a negative zlib error. */
int an_ws_deflate(void *stream, const uint8_t *input, size_t length, size_t *consumed, uint8_t *output,
                  size_t capacity, size_t *produced, int flush);
/* One inflate call (Z_SYNC_FLUSH). Returns 0 (ok), 1 (no progress: Z_BUF_ERROR), 2 (stream
   end: a final block was seen) or a negative zlib error (corrupt data). */
int an_ws_inflate(void *stream, const uint8_t *input, size_t length, size_t *consumed, uint8_t *output,
                  size_t capacity, size_t *produced);

/* ---- raw I/O on a CONNECT_ONLY connection ---- */

#define AN_WS_CURLOPT_CONNECT_ONLY 141
#define AN_WS_CURLE_AGAIN 81

/* 0 when curl_easy_perform, curl_easy_send, curl_easy_recv and curl_easy_getinfo were found. */
int an_ws_curl_load(void);
/* curl_easy_perform (blocking: with CONNECT_ONLY it returns once connected, TLS included). */
int an_ws_curl_perform(void *easy);
/* curl_easy_send / curl_easy_recv: CURLcode; CURLE_AGAIN (81) when the socket is not ready. */
int an_ws_curl_send(void *easy, const void *buffer, size_t length, size_t *sent);
int an_ws_curl_recv(void *easy, void *buffer, size_t length, size_t *received);
/* The connection's socket (CURLINFO_ACTIVESOCKET), or -1. */
int an_ws_curl_active_socket(void *easy);

#ifdef __cplusplus
}
#endif
#endif
