/*
 * ANWebSocket: see include/ANWebSocket.h. The z_stream layout and constants are zlib 1.2's
 * (zlib.h), part of its stable ABI; the curl constants are those of curl.h 7.88.
 */
#include "ANWebSocket.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *next_in;
    unsigned avail_in;
    unsigned long total_in;
    uint8_t *next_out;
    unsigned avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} an_ws_z_stream;

#define Z_OK 0
#define Z_STREAM_END 1
#define Z_BUF_ERROR (-5)
#define Z_NO_FLUSH 0
#define Z_SYNC_FLUSH 2
#define Z_DEFLATED 8
#define Z_DEFAULT_COMPRESSION (-1)
#define Z_DEFAULT_STRATEGY 0

static const char *(*p_version)(void);
static int (*p_deflate_init2)(an_ws_z_stream *, int, int, int, int, int, const char *, int);
static int (*p_deflate)(an_ws_z_stream *, int);
static int (*p_deflate_end)(an_ws_z_stream *);
static int (*p_deflate_reset)(an_ws_z_stream *);
static int (*p_inflate_init2)(an_ws_z_stream *, int, const char *, int);
static int (*p_inflate)(an_ws_z_stream *, int);
static int (*p_inflate_end)(an_ws_z_stream *);
static int (*p_inflate_reset)(an_ws_z_stream *);

static pthread_once_t zlib_once = PTHREAD_ONCE_INIT;
static int zlib_loaded;

#define SYM(handle, pointer, name)                                                              \
    do {                                                                                        \
        *(void **)(&pointer) = dlsym(handle, name);                                             \
        if (pointer == NULL) return;                                                            \
    } while (0)

static void load_zlib(void) {
    void *handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    SYM(handle, p_version, "zlibVersion");
    SYM(handle, p_deflate_init2, "deflateInit2_");
    SYM(handle, p_deflate, "deflate");
    SYM(handle, p_deflate_end, "deflateEnd");
    SYM(handle, p_deflate_reset, "deflateReset");
    SYM(handle, p_inflate_init2, "inflateInit2_");
    SYM(handle, p_inflate, "inflate");
    SYM(handle, p_inflate_end, "inflateEnd");
    SYM(handle, p_inflate_reset, "inflateReset");
    zlib_loaded = 1;
}

int an_ws_zlib_available(void) {
    pthread_once(&zlib_once, load_zlib);
    return zlib_loaded;
}

void *an_ws_deflate_create(int window_bits) {
    if (!an_ws_zlib_available() || window_bits < 9 || window_bits > 15) return NULL;
    an_ws_z_stream *stream = calloc(1, sizeof(an_ws_z_stream));
    if (stream == NULL) return NULL;
    if (p_deflate_init2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -window_bits, 8, Z_DEFAULT_STRATEGY, p_version(),
                        (int)sizeof(an_ws_z_stream)) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

void *an_ws_inflate_create(int window_bits) {
    if (!an_ws_zlib_available() || window_bits < 8 || window_bits > 15) return NULL;
    an_ws_z_stream *stream = calloc(1, sizeof(an_ws_z_stream));
    if (stream == NULL) return NULL;
    if (p_inflate_init2(stream, -window_bits, p_version(), (int)sizeof(an_ws_z_stream)) != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

void an_ws_deflate_free(void *stream) {
    if (stream == NULL) return;
    p_deflate_end(stream);
    free(stream);
}

void an_ws_inflate_free(void *stream) {
    if (stream == NULL) return;
    p_inflate_end(stream);
    free(stream);
}

int an_ws_deflate_reset(void *stream) { return p_deflate_reset(stream); }
int an_ws_inflate_reset(void *stream) { return p_inflate_reset(stream); }

static unsigned clamp(size_t value) { return value > 0x40000000u ? 0x40000000u : (unsigned)value; }

int an_ws_deflate(void *opaque, const uint8_t *input, size_t length, size_t *consumed, uint8_t *output,
                  size_t capacity, size_t *produced, int flush) {
    an_ws_z_stream *stream = opaque;
    stream->next_in = input;
    stream->avail_in = clamp(length);
    stream->next_out = output;
    stream->avail_out = clamp(capacity);
    unsigned in_before = stream->avail_in, out_before = stream->avail_out;
    int status = p_deflate(stream, flush ? Z_SYNC_FLUSH : Z_NO_FLUSH);
    *consumed = in_before - stream->avail_in;
    *produced = out_before - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    if (status == Z_OK || status == Z_STREAM_END) return 0;
    if (status == Z_BUF_ERROR) return 1;
    return status < 0 ? status : -1;
}

int an_ws_inflate(void *opaque, const uint8_t *input, size_t length, size_t *consumed, uint8_t *output,
                  size_t capacity, size_t *produced) {
    an_ws_z_stream *stream = opaque;
    stream->next_in = input;
    stream->avail_in = clamp(length);
    stream->next_out = output;
    stream->avail_out = clamp(capacity);
    unsigned in_before = stream->avail_in, out_before = stream->avail_out;
    int status = p_inflate(stream, Z_SYNC_FLUSH);
    *consumed = in_before - stream->avail_in;
    *produced = out_before - stream->avail_out;
    stream->next_in = NULL;
    stream->next_out = NULL;
    if (status == Z_OK) return 0;
    if (status == Z_STREAM_END) return 2;
    if (status == Z_BUF_ERROR) return 1;
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
    SYM(handle, p_perform, "curl_easy_perform");
    SYM(handle, p_send, "curl_easy_send");
    SYM(handle, p_recv, "curl_easy_recv");
    SYM(handle, p_getinfo, "curl_easy_getinfo");
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
