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

/* CURLOPT_SSLVERSION (LONG 32) with CURL_SSLVERSION_MAX_TLSv1_3 (7 << 16): TLS 1.3 is the most
   OpenSSL 3 offers anyway, but the explicit maximum makes the connection's SSL configuration
   differ (Curl_ssl_config_matches compares version_max), so no other transfer reuses it. */
#define ANCURLOPT_SSLVERSION             32
#define ANCURL_SSLVERSION_MAX_TLSv1_3    (7L << 16)

#endif
