/*
 * CRawCurl: just enough of libcurl for the benchmarks' bare libcurl loop (the raw-curl contender),
 * loaded at run time with dlopen("libcurl.so.4"), as the library's own shim does, so neither needs
 * curl's headers or a libcurl.so development link. It is separate from the library's CCurlShim
 * (not a product of the AsyncNetworking package): the raw loop shares no code with the transport it
 * is the limit for, only the libcurl it loads.
 *
 * libcurl's variadic setopt/getinfo calls are wrapped with one argument of a fixed type, so Swift
 * never calls a variadic C function. Call rawcurl_load() once (idempotent, thread-safe) first.
 */
#ifndef CRAWCURL_H
#define CRAWCURL_H

#include <stddef.h>

typedef struct rawcurl_easy rawcurl_easy;
typedef struct rawcurl_multi rawcurl_multi;

/* curl_write_callback. */
typedef size_t (*rawcurl_write_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

/* The option and info numbers the loop sets (values from curl.h and multi.h). */
enum {
    RAWCURLOPT_WRITEDATA = 10001,
    RAWCURLOPT_URL = 10002,
    RAWCURLOPT_WRITEFUNCTION = 20011,
    RAWCURLOPT_NOSIGNAL = 99,
    RAWCURLOPT_TCP_NODELAY = 121,
    RAWCURLINFO_RESPONSE_CODE = 0x200002,
    RAWCURLMOPT_MAX_HOST_CONNECTIONS = 7,
};

/* Loads libcurl.so.4 and resolves every function below; 0 on success, else -1 with a message in err. */
int rawcurl_load(char *err, size_t errlen);
/* curl_version(). */
const char *rawcurl_version(void);

rawcurl_easy *rawcurl_easy_init(void);
void rawcurl_easy_cleanup(rawcurl_easy *easy);
int rawcurl_easy_setopt_long(rawcurl_easy *easy, int option, long value);
int rawcurl_easy_setopt_pointer(rawcurl_easy *easy, int option, const void *value);
int rawcurl_easy_setopt_write(rawcurl_easy *easy, int option, rawcurl_write_callback callback);
int rawcurl_easy_getinfo_long(rawcurl_easy *easy, int info, long *value);

rawcurl_multi *rawcurl_multi_init(void);
int rawcurl_multi_cleanup(rawcurl_multi *multi);
int rawcurl_multi_setopt_long(rawcurl_multi *multi, int option, long value);
int rawcurl_multi_add(rawcurl_multi *multi, rawcurl_easy *easy);
int rawcurl_multi_remove(rawcurl_multi *multi, rawcurl_easy *easy);
int rawcurl_multi_perform(rawcurl_multi *multi, int *running);
int rawcurl_multi_poll(rawcurl_multi *multi, int timeout_ms, int *numfds);
/* The next finished transfer: 1 with its handle and CURLcode, or 0 when there is none. */
int rawcurl_multi_done(rawcurl_multi *multi, rawcurl_easy **easy, int *result);

#endif
