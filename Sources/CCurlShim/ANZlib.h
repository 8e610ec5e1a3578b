/*
 * ANZlib (private to CCurlShim): zlib, opened once with dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL)
 * under pthread_once and never closed, for both users of it: the content decoders
 * (ANContentDecoder.c) and WebSocket permessage-deflate (ANWebSocket.c). The z_stream layout and
 * the constants are zlib 1.2's (zlib.h), part of its stable ABI, so no zlib header is needed.
 */
#ifndef AN_ZLIB_H
#define AN_ZLIB_H

#include <dlfcn.h>
#include <stdint.h>

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
} an_z_stream;

#define AN_Z_OK 0
#define AN_Z_STREAM_END 1
#define AN_Z_NEED_DICT 2
#define AN_Z_BUF_ERROR (-5)
#define AN_Z_NO_FLUSH 0
#define AN_Z_SYNC_FLUSH 2
#define AN_Z_DEFLATED 8
#define AN_Z_DEFAULT_COMPRESSION (-1)
#define AN_Z_DEFAULT_STRATEGY 0

/* The zlib entry points both users call (deflateInit2_ / inflateInit2_ take the version and the
   z_stream size, as the deflateInit2 / inflateInit2 macros of zlib.h pass them). */
typedef struct {
    const char *(*version)(void);
    int (*deflate_init2)(an_z_stream *, int, int, int, int, int, const char *, int);
    int (*deflate)(an_z_stream *, int);
    int (*deflate_end)(an_z_stream *);
    int (*deflate_reset)(an_z_stream *);
    int (*inflate_init2)(an_z_stream *, int, const char *, int);
    int (*inflate)(an_z_stream *, int);
    int (*inflate_end)(an_z_stream *);
    int (*inflate_reset)(an_z_stream *);
} an_zlib_api;

/* zlib's functions, loaded on the first call (thread-safe); NULL when libz.so.1 or one of the
   symbols is missing. */
__attribute__((visibility("hidden"))) const an_zlib_api *an_zlib(void);

/* Looks `name` up in `handle` into the function pointer `pointer`; returns from the calling
   (void) loader when it is missing, so the library counts as not loaded. */
#define AN_DLSYM(handle, pointer, name)                                                         \
    do {                                                                                        \
        *(void **)(&(pointer)) = dlsym(handle, name);                                           \
        if ((pointer) == NULL) return;                                                          \
    } while (0)

#endif
