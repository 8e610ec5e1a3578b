/*
 * ANContentDecoder: incremental HTTP content decoders (gzip, deflate, br, zstd) over zlib,
 * libbrotlidec and libzstd, each loaded at run time with dlopen ("libz.so.1",
 * "libbrotlidec.so.1", "libzstd.so.1"); no header of those libraries is needed. A coding whose
 * library is missing reports itself unavailable and is never advertised.
 *
 * A decoder never produces more than the output capacity it is given per step, so its caller
 * bounds memory whatever the expansion ratio; input it has not used stays with the caller.
 */
#ifndef AN_CONTENT_DECODER_H
#define AN_CONTENT_DECODER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct an_decoder an_decoder;

/* Codings. AN_CODING_GZIP also serves x-gzip; AN_CODING_DEFLATE accepts the zlib format
   (RFC 1950, as RFC 9110 defines "deflate") and, like browsers and curl, raw deflate. */
#define AN_CODING_GZIP 1
#define AN_CODING_DEFLATE 2
#define AN_CODING_BROTLI 3
#define AN_CODING_ZSTD 4

/* Step results. */
#define AN_DECODE_OK 0    /* progress made, or more input / output room needed */
#define AN_DECODE_END 1   /* the encoded stream ended properly; no byte of input is left over */
#define AN_DECODE_ERROR 2 /* corrupt, trailing garbage, checksum mismatch, too large a window */

/* 1 when the library behind `coding` could be loaded (loads it once, thread-safe), else 0. */
int an_decoder_available(int coding);

/* A new decoder, or NULL (library missing, out of memory). */
an_decoder *an_decoder_create(int coding);

/* Decodes from `*input` (`*input_length` bytes; both advanced past what was used) into `output`
   (at most `capacity` bytes; `*produced` is set to how many were written). Returns AN_DECODE_*.
   A zstd or gzip stream may hold several frames / members; END is reported only at a boundary
   with all input used, and further input then starts the next frame or member. */
int an_decoder_step(an_decoder *decoder, const uint8_t **input, size_t *input_length,
                    uint8_t *output, size_t capacity, size_t *produced);

/* Whether everything given so far ends at a frame / member boundary (the body may end here). */
int an_decoder_is_complete(const an_decoder *decoder);

/* Why the last step failed (static or decoder-owned text), or "". */
const char *an_decoder_error(const an_decoder *decoder);

void an_decoder_free(an_decoder *decoder);

#ifdef __cplusplus
}
#endif

#endif
