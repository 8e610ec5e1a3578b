/*
 * ANHTTP2: the libcurl option numbers the curl transport's HTTP/2 settings use (values from
 * curl/curl.h and curl/multi.h of libcurl 7.88; every one exists since 7.67 or earlier).
 * Header only: the options go through ancurl_multi_setopt_long / ancurl_easy_setopt_long.
 */
#ifndef ANHTTP2_H
#define ANHTTP2_H

/* CURLMOPT_PIPELINING (LONG 3) and its CURLPIPE_MULTIPLEX bit (7.43; the default since 7.62). */
#define ANCURLMOPT_PIPELINING            3
#define ANCURLPIPE_MULTIPLEX             2
/* CURLMOPT_MAX_CONCURRENT_STREAMS (LONG 16, 7.67): streams per HTTP/2 connection, 1...2^31-1
   (curl's default 100). Sent to the server as SETTINGS_MAX_CONCURRENT_STREAMS too. */
#define ANCURLMOPT_MAX_CONCURRENT_STREAMS 16
/* CURLOPT_PIPEWAIT (LONG 237, 7.43): wait for a connection that may multiplex instead of
   opening a new one. */
#define ANCURLOPT_PIPEWAIT               237

#endif
