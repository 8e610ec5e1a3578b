/*
 * ANWebSocket: see include/ANWebSocket.h. zlib comes from ANZlib.c (loaded once, shared with the
 * content decoders); the curl constants are those of curl.h 7.88.
 */
#include "ANWebSocket.h"
#include "ANZlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SUCCESS 0
#define NO_PROGRESS 1
#define ENDED 2

void *an_ws_deflate_create(int window_bits) {
    const an_zlib_api *zlib = an_zlib();
    if (zlib == NULL || window_bits < 9 || window_bits > 15) return NULL;
    an_z_stream *stream = calloc(1, sizeof(an_z_stream));
    if (stream == NULL) return NULL;
    if (zlib->deflate_init2(stream, AN_Z_DEFAULT_COMPRESSION, AN_Z_DEFLATED, -window_bits, 8, AN_Z_DEFAULT_STRATEGY,
                            zlib->version(), (int)sizeof(an_z_stream)) != AN_Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

void *an_ws_inflate_create(int window_bits) {
    const an_zlib_api *zlib = an_zlib();
    if (zlib == NULL || window_bits < 8 || window_bits > 15) return NULL;
    an_z_stream *stream = calloc(1, sizeof(an_z_stream));
    if (stream == NULL) return NULL;
    if (zlib->inflate_init2(stream, -window_bits, zlib->version(), (int)sizeof(an_z_stream)) != AN_Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

int an_ws_zlib_available(void) { return an_zlib() != NULL; }

/* A stream exists only once an_zlib() has loaded, so an_zlib() below is never NULL. */
void an_ws_deflate_free(void *stream) {
    if (stream == NULL) return;
    an_zlib()->deflate_end(stream);
    free(stream);
}

void an_ws_inflate_free(void *stream) {
    if (stream == NULL) return;
    an_zlib()->inflate_end(stream);
    free(stream);
}

int an_ws_deflate_reset(void *stream) { return an_zlib()->deflate_reset(stream); }
int an_ws_inflate_reset(void *stream) { return an_zlib()->inflate_reset(stream); }

static unsigned clamp(size_t value) { return value > 0x40000000u ? 0x40000000u : (unsigned)value; }

/* One deflate or inflate call (`step`) over the caller's buffers; the stream keeps no pointer to
   them afterwards. Returns zlib's status. */
static int run(int (*step)(an_z_stream *, int), an_z_stream *stream, int flush, const uint8_t *input,
               size_t length, size_t *consumed, uint8_t *output, size_t capacity, size_t *produced) {
    stream->next_in = input;
    stream->avail_in = clamp(length);
    stream->next_out = output;
    stream->avail_out = clamp(capacity);
    unsigned in_before = stream->avail_in, out_before = stream->avail_out;
    int status = step(stream, flush);
    *consumed = in_before - stream->avail_in;
    *produced = out_before - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    return status;
}

int an_ws_deflate(void *stream, const uint8_t *input, size_t length, size_t *consumed, uint8_t *output,
                  size_t capacity, size_t *produced, int flush) {
    int status = run(an_zlib()->deflate, stream, flush ? AN_Z_SYNC_FLUSH : AN_Z_NO_FLUSH, input, length, consumed,
                     output, capacity, produced);
    if (status == AN_Z_OK || status == AN_Z_STREAM_END) return SUCCESS;
    if (status == AN_Z_BUF_ERROR) return NO_PROGRESS;
    return status < 0 ? status : -1;
}

int an_ws_inflate(void *stream, const uint8_t *input, size_t length, size_t *consumed, uint8_t *output,
                  size_t capacity, size_t *produced) {
    int status = run(an_zlib()->inflate, stream, AN_Z_SYNC_FLUSH, input, length, consumed, output, capacity,
                     produced);
    if (status == AN_Z_OK) return SUCCESS;
    if (status == AN_Z_STREAM_END) return ENDED;
    if (status == AN_Z_BUF_ERROR) return NO_PROGRESS;
    return status < 0 ? status : -1;
}

/* ---- curl ---- */

#define AN_WS_CURLINFO_ACTIVESOCKET (0x500000 + 44)

static int (*p_perform)(void *);
static int (*p_send)(void *, const void *, size_t, size_t *);
static int (*p_recv)(void *, void *, size_t, size_t *);
static int (*p_getinfo)(void *, int, ...);
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static int curl_loaded;

static void load_curl(void) {
    void *handle = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    AN_DLSYM(handle, p_perform, "curl_easy_perform");
    AN_DLSYM(handle, p_send, "curl_easy_send");
    AN_DLSYM(handle, p_recv, "curl_easy_recv");
    AN_DLSYM(handle, p_getinfo, "curl_easy_getinfo");
    curl_loaded = 1;
}

int an_ws_curl_load(void) {
    pthread_once(&curl_once, load_curl);
    return curl_loaded ? 0 : -1;
}

int an_ws_curl_perform(void *easy) { return p_perform(easy); }

int an_ws_curl_send(void *easy, const void *buffer, size_t length, size_t *sent) {
    *sent = 0;
    return p_send(easy, buffer, length, sent);
}

int an_ws_curl_recv(void *easy, void *buffer, size_t length, size_t *received) {
    *received = 0;
    return p_recv(easy, buffer, length, received);
}

int an_ws_curl_active_socket(void *easy) {
    int socket = -1; /* curl_socket_t is int on POSIX */
    if (p_getinfo(easy, AN_WS_CURLINFO_ACTIVESOCKET, &socket) != 0) return -1;
    return socket;
}
