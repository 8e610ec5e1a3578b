/*
 * ANContentDecoder: see include/ANContentDecoder.h. Each library is opened once, under
 * pthread_once, with dlopen(RTLD_NOW | RTLD_LOCAL) and never closed (zlib by ANZlib.c, which
 * WebSocket permessage-deflate shares); the structures and constants below are those of
 * brotli 1.0 (decode.h) and zstd 1.4+ (zstd.h), part of those libraries' stable ABIs.
 */
#include "ANContentDecoder.h"
#include "ANZlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- brotli ---- */
#define AN_BROTLI_ERROR 0
#define AN_BROTLI_SUCCESS 1
#define AN_BROTLI_NEEDS_MORE_INPUT 2
#define AN_BROTLI_NEEDS_MORE_OUTPUT 3

static void *(*p_brotli_create)(void *, void *, void *);
static void (*p_brotli_destroy)(void *);
static int (*p_brotli_stream)(void *, size_t *, const uint8_t **, size_t *, uint8_t **, size_t *);
static int (*p_brotli_error_code)(void *);
static const char *(*p_brotli_error_string)(int);

/* ---- zstd ---- */
typedef struct { const void *src; size_t size; size_t pos; } an_zstd_in;
typedef struct { void *dst; size_t size; size_t pos; } an_zstd_out;
#define AN_ZSTD_D_WINDOWLOGMAX 100
/* RFC 9659: a zstd content coding's window is at most 8 MB; larger frames are refused. */
#define AN_ZSTD_WINDOW_LOG_LIMIT 23

static void *(*p_zstd_create)(void);
static size_t (*p_zstd_free)(void *);
static size_t (*p_zstd_set_parameter)(void *, int, int);
static size_t (*p_zstd_stream)(void *, an_zstd_out *, an_zstd_in *);
static unsigned (*p_zstd_is_error)(size_t);
static const char *(*p_zstd_error_name)(size_t);

static pthread_once_t brotli_once = PTHREAD_ONCE_INIT, zstd_once = PTHREAD_ONCE_INIT;
static int brotli_loaded, zstd_loaded;

static void load_brotli(void) {
    void *handle = dlopen("libbrotlidec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    AN_DLSYM(handle, p_brotli_create, "BrotliDecoderCreateInstance");
    AN_DLSYM(handle, p_brotli_destroy, "BrotliDecoderDestroyInstance");
    AN_DLSYM(handle, p_brotli_stream, "BrotliDecoderDecompressStream");
    AN_DLSYM(handle, p_brotli_error_code, "BrotliDecoderGetErrorCode");
    AN_DLSYM(handle, p_brotli_error_string, "BrotliDecoderErrorString");
    brotli_loaded = 1;
}

static void load_zstd(void) {
    void *handle = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    AN_DLSYM(handle, p_zstd_create, "ZSTD_createDCtx");
    AN_DLSYM(handle, p_zstd_free, "ZSTD_freeDCtx");
    AN_DLSYM(handle, p_zstd_set_parameter, "ZSTD_DCtx_setParameter");
    AN_DLSYM(handle, p_zstd_stream, "ZSTD_decompressStream");
    AN_DLSYM(handle, p_zstd_is_error, "ZSTD_isError");
    AN_DLSYM(handle, p_zstd_error_name, "ZSTD_getErrorName");
    zstd_loaded = 1;
}

int an_decoder_available(int coding) {
    switch (coding) {
    case AN_CODING_GZIP:
    case AN_CODING_DEFLATE: return an_zlib() != NULL;
    case AN_CODING_BROTLI: pthread_once(&brotli_once, load_brotli); return brotli_loaded;
    case AN_CODING_ZSTD: pthread_once(&zstd_once, load_zstd); return zstd_loaded;
    default: return 0;
    }
}

struct an_decoder {
    int coding;
    /* 1 at a frame / member boundary (the body may end here). */
    int complete;
    /* The stream ended and no further frame may follow (deflate, br). */
    int ended;
    /* zlib: the stream is initialised; deflate: the first two bytes, until zlib vs raw is known. */
    int zlib_ready;
    uint8_t head[2];
    size_t head_length;
    an_z_stream z;
    const an_zlib_api *zlib; /* gzip, deflate */
    void *brotli;
    void *zstd;
    const char *error;
};

an_decoder *an_decoder_create(int coding) {
    if (!an_decoder_available(coding)) return NULL;
    an_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->coding = coding;
    decoder->error = "";
    decoder->zlib = an_zlib();
    switch (coding) {
    case AN_CODING_GZIP:
        /* 16 + 15: gzip wrapper only, 32 KiB window. */
        if (decoder->zlib->inflate_init2(&decoder->z, 16 + 15, decoder->zlib->version(), (int)sizeof(an_z_stream)) != AN_Z_OK) break;
        decoder->zlib_ready = 1;
        return decoder;
    case AN_CODING_DEFLATE:
        return decoder; /* initialised once the first two bytes are known */
    case AN_CODING_BROTLI:
        decoder->brotli = p_brotli_create(NULL, NULL, NULL);
        if (decoder->brotli == NULL) break;
        return decoder;
    case AN_CODING_ZSTD:
        decoder->zstd = p_zstd_create();
        if (decoder->zstd == NULL) break;
        if (p_zstd_is_error(p_zstd_set_parameter(decoder->zstd, AN_ZSTD_D_WINDOWLOGMAX, AN_ZSTD_WINDOW_LOG_LIMIT))) break;
        return decoder;
    }
    an_decoder_free(decoder);
    return NULL;
}

void an_decoder_free(an_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->zlib_ready) decoder->zlib->inflate_end(&decoder->z);
    if (decoder->brotli != NULL) p_brotli_destroy(decoder->brotli);
    if (decoder->zstd != NULL) p_zstd_free(decoder->zstd);
    free(decoder);
}

int an_decoder_is_complete(const an_decoder *decoder) { return decoder->complete; }

const char *an_decoder_error(const an_decoder *decoder) { return decoder->error; }

static int fail(an_decoder *decoder, const char *reason) {
    decoder->error = reason != NULL ? reason : "corrupt encoded data";
    decoder->complete = 0;
    return AN_DECODE_ERROR;
}

/* One inflate call over `*input`; handles member ends (gzip: the next member follows). */
static int inflate_step(an_decoder *decoder, const uint8_t **input, size_t *input_length,
                        uint8_t *output, size_t capacity, size_t *produced) {
    an_z_stream *z = &decoder->z;
    size_t in_chunk = *input_length > 0x40000000u ? 0x40000000u : *input_length;
    size_t out_chunk = capacity > 0x40000000u ? 0x40000000u : capacity;
    z->next_in = *input;
    z->avail_in = (unsigned)in_chunk;
    z->next_out = output;
    z->avail_out = (unsigned)out_chunk;
    int code = decoder->zlib->inflate(z, AN_Z_NO_FLUSH);
    size_t used = in_chunk - z->avail_in;
    *input += used;
    *input_length -= used;
    *produced = out_chunk - z->avail_out;
    if (used > 0 || *produced > 0) decoder->complete = 0;
    switch (code) {
    case AN_Z_OK:
        return AN_DECODE_OK;
    case AN_Z_BUF_ERROR: /* no progress possible: needs input or output room */
        return AN_DECODE_OK;
    case AN_Z_STREAM_END:
        decoder->complete = 1;
        if (decoder->coding == AN_CODING_GZIP) {
            decoder->zlib->inflate_reset(z); /* a further member may follow (RFC 1952 §2.2) */
            return *input_length == 0 ? AN_DECODE_END : AN_DECODE_OK;
        }
        decoder->ended = 1;
        return *input_length == 0 ? AN_DECODE_END : fail(decoder, "trailing data after the end of the deflate stream");
    case AN_Z_NEED_DICT:
        return fail(decoder, "the deflate stream needs a preset dictionary");
    default:
        return fail(decoder, z->msg != NULL ? z->msg : "corrupt deflate data");
    }
}

/* deflate: the zlib format when the first two bytes are a zlib header (RFC 1950 §2.2), else raw. */
static int deflate_start(an_decoder *decoder, const uint8_t **input, size_t *input_length) {
    while (decoder->head_length < 2 && *input_length > 0) {
        decoder->head[decoder->head_length++] = **input;
        *input += 1;
        *input_length -= 1;
    }
    if (decoder->head_length < 2) return 0;
    unsigned cmf = decoder->head[0], flg = decoder->head[1];
    int zlib = (cmf & 0x0F) == 8 && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
    if (decoder->zlib->inflate_init2(&decoder->z, zlib ? 15 : -15, decoder->zlib->version(), (int)sizeof(an_z_stream)) != AN_Z_OK) return -1;
    decoder->zlib_ready = 1;
    return 1;
}

int an_decoder_step(an_decoder *decoder, const uint8_t **input, size_t *input_length,
                    uint8_t *output, size_t capacity, size_t *produced) {
    *produced = 0;
    if (decoder->ended) {
        return *input_length == 0 ? AN_DECODE_END : fail(decoder, "trailing data after the end of the encoded stream");
    }
    switch (decoder->coding) {
    case AN_CODING_GZIP:
        return inflate_step(decoder, input, input_length, output, capacity, produced);
    case AN_CODING_DEFLATE: {
        if (!decoder->zlib_ready) {
            int started = deflate_start(decoder, input, input_length);
            if (started < 0) return fail(decoder, "cannot start zlib");
            if (started == 0) return AN_DECODE_OK;
        }
        if (decoder->head_length > 0) { /* the two bytes read to tell zlib from raw */
            const uint8_t *head = decoder->head + (2 - decoder->head_length);
            size_t head_length = decoder->head_length;
            int code = inflate_step(decoder, &head, &head_length, output, capacity, produced);
            decoder->head_length = head_length;
            if (code == AN_DECODE_END && *input_length > 0) {
                return fail(decoder, "trailing data after the end of the deflate stream");
            }
            if (code != AN_DECODE_OK || head_length > 0 || *produced == capacity) return code;
            /* The head is used up and there is room: go on with the input, so a step that used
               no input always produced something (or needs more input). */
            size_t more = 0;
            code = inflate_step(decoder, input, input_length, output + *produced, capacity - *produced, &more);
            *produced += more;
            return code;
        }
        return inflate_step(decoder, input, input_length, output, capacity, produced);
    }
    case AN_CODING_BROTLI: {
        size_t available_in = *input_length, available_out = capacity;
        uint8_t *next_out = output;
        int code = p_brotli_stream(decoder->brotli, &available_in, input, &available_out, &next_out, NULL);
        size_t used = *input_length - available_in;
        *input_length = available_in;
        *produced = capacity - available_out;
        if (used > 0 || *produced > 0) decoder->complete = 0;
        switch (code) {
        case AN_BROTLI_SUCCESS:
            decoder->complete = 1;
            decoder->ended = 1;
            return *input_length == 0 ? AN_DECODE_END : fail(decoder, "trailing data after the end of the brotli stream");
        case AN_BROTLI_NEEDS_MORE_INPUT:
        case AN_BROTLI_NEEDS_MORE_OUTPUT:
            return AN_DECODE_OK;
        default:
            return fail(decoder, p_brotli_error_string(p_brotli_error_code(decoder->brotli)));
        }
    }
    case AN_CODING_ZSTD: {
        an_zstd_in in = { *input, *input_length, 0 };
        an_zstd_out out = { output, capacity, 0 };
        size_t code = p_zstd_stream(decoder->zstd, &out, &in);
        *input += in.pos;
        *input_length -= in.pos;
        *produced = out.pos;
        if (p_zstd_is_error(code)) return fail(decoder, p_zstd_error_name(code));
        if (in.pos > 0 || out.pos > 0) decoder->complete = 0;
        if (code == 0) { /* a frame ended and is flushed; another may follow */
            decoder->complete = 1;
            return *input_length == 0 ? AN_DECODE_END : AN_DECODE_OK;
        }
        return AN_DECODE_OK;
    }
    default:
        return fail(decoder, "unknown coding");
    }
}
