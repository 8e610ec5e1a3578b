/*
 * ANTrailers: request trailer fields for libcurl (CURLOPT_TRAILERFUNCTION, libcurl 7.64), set on an
 * easy handle of the library CCurlShim loads (call ancurl_load() first).
 *
 * libcurl calls the callback once, right before the last chunk of a chunked HTTP/1.1 upload ends,
 * to fill `*list` with "Name: value" lines (no CRLF) made with ancurl_slist_append; it frees the
 * list itself. libcurl 7.88 never calls it for HTTP/2 (its HTTP/2 upload has no chunked framing).
 */
#ifndef ANTRAILERS_H
#define ANTRAILERS_H

#include "CCurlShim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CURL_TRAILERFUNC_OK and CURL_TRAILERFUNC_ABORT. */
#define AN_CURL_TRAILERFUNC_OK 0
#define AN_CURL_TRAILERFUNC_ABORT 1

/* int curl_trailer_callback(struct curl_slist **list, void *userdata) */
typedef int (*an_trailer_callback)(ancurl_slist **list, void *userdata);

/* Sets CURLOPT_TRAILERFUNCTION and CURLOPT_TRAILERDATA; returns the first non-zero CURLcode, else 0. */
int an_curl_set_trailer_function(ancurl_easy *easy, an_trailer_callback callback, void *userdata);

#ifdef __cplusplus
}
#endif

#endif
