/*
 * CCurlShim: non-variadic entry points into libcurl, resolved at run time.
 *
 * No curl header is needed (or present): this file declares the opaque handle types and the few
 * numeric constants AsyncNetworking uses, with the values of libcurl 7.88's public curl.h and
 * multi.h (these values never change between libcurl releases). Every ancurl_* function calls
 * through a function pointer that ancurl_load() fills with dlopen("libcurl.so.4") + dlsym.
 * Call ancurl_load() once (it is idempotent and thread-safe) before any other function.
 */
#ifndef CCURLSHIM_H
#define CCURLSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque handles (CURL *, CURLM *, struct curl_slist *). */
typedef struct ancurl_easy ancurl_easy;
typedef struct ancurl_multi ancurl_multi;
typedef struct ancurl_slist ancurl_slist;

/* curl_write_callback / curl_read_callback / header callback. */
typedef size_t (*ancurl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);
/* curl_seek_callback: return 0 (ok), 1 (fail) or 2 (cannot seek). */
typedef int (*ancurl_seek_callback)(void *userdata, int64_t offset, int origin);
/* curl_debug_callback: (handle, curl_infotype, data, size, userptr); returns 0. */
typedef int (*ancurl_debug_callback)(ancurl_easy *handle, int type, char *data, size_t size, void *userdata);
/* curl_prereq_callback (libcurl 7.80): called once a connection is made or reused (TLS handshake
   and curl's own certificate checks done), before any byte of the request is sent. Return
   ANCURL_PREREQFUNC_OK or ANCURL_PREREQFUNC_ABORT (the transfer then ends with
   CURLE_ABORTED_BY_CALLBACK). */
typedef int (*ancurl_prereq_callback)(void *userdata, char *primary_ip, char *local_ip, int primary_port,
                                      int local_port);

/* ---- CURLoption (CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000, OFF_T 30000) ---- */
#define ANCURLOPT_WRITEDATA             10001
#define ANCURLOPT_URL                   10002
#define ANCURLOPT_READDATA              10009
#define ANCURLOPT_ERRORBUFFER           10010
#define ANCURLOPT_WRITEFUNCTION         20011
#define ANCURLOPT_READFUNCTION          20012
#define ANCURLOPT_LOW_SPEED_LIMIT       19
#define ANCURLOPT_LOW_SPEED_TIME        20
#define ANCURLOPT_HTTPHEADER            10023
#define ANCURLOPT_HEADERDATA            10029
#define ANCURLOPT_CUSTOMREQUEST         10036
#define ANCURLOPT_NOPROGRESS            43
#define ANCURLOPT_NOBODY                44
#define ANCURLOPT_UPLOAD                46
#define ANCURLOPT_POST                  47
#define ANCURLOPT_FOLLOWLOCATION        52
#define ANCURLOPT_HEADERFUNCTION        20079
#define ANCURLOPT_HTTPGET               80
#define ANCURLOPT_HTTP_VERSION          84
#define ANCURLOPT_BUFFERSIZE            98
#define ANCURLOPT_NOSIGNAL              99
#define ANCURLOPT_PROXY                 10004
#define ANCURLOPT_ACCEPT_ENCODING       10102
#define ANCURLOPT_PRIVATE               10103
#define ANCURLOPT_HTTPAUTH              107
#define ANCURLOPT_INFILESIZE_LARGE      30115
#define ANCURLOPT_POSTFIELDSIZE_LARGE   30120
#define ANCURLOPT_TCP_NODELAY           121
#define ANCURLOPT_TIMEOUT_MS            155
#define ANCURLOPT_CONNECTTIMEOUT_MS     156
#define ANCURLOPT_SEEKFUNCTION          20167
#define ANCURLOPT_SEEKDATA              10168
#define ANCURLOPT_USERNAME              10173
#define ANCURLOPT_PASSWORD              10174
#define ANCURLOPT_PROTOCOLS             181
#define ANCURLOPT_SUPPRESS_CONNECT_HEADERS 265
#define ANCURLOPT_PROTOCOLS_STR         10318
/* TLS (values checked with curl_easy_option_by_name on libcurl 7.88.1). */
#define ANCURLOPT_SSLCERT               10025
#define ANCURLOPT_KEYPASSWD             10026
#define ANCURLOPT_SSL_VERIFYPEER        64
#define ANCURLOPT_CAINFO                10065
#define ANCURLOPT_FRESH_CONNECT         74
#define ANCURLOPT_FORBID_REUSE          75
#define ANCURLOPT_SSL_VERIFYHOST        81
#define ANCURLOPT_SSLCERTTYPE           10086
#define ANCURLOPT_SSLKEY                10087
#define ANCURLOPT_SSLKEYTYPE            10088
#define ANCURLOPT_CAPATH                10097
#define ANCURLOPT_SSL_SESSIONID_CACHE   150
#define ANCURLOPT_CERTINFO              172
#define ANCURLOPT_PINNEDPUBLICKEY       10230
#define ANCURLOPT_CAINFO_BLOB           40309 /* libcurl 7.77 */
#define ANCURLOPT_VERBOSE               41
#define ANCURLOPT_DEBUGFUNCTION         20094
#define ANCURLOPT_DEBUGDATA             10095
#define ANCURLOPT_PREREQFUNCTION        20312 /* libcurl 7.80 */
#define ANCURLOPT_PREREQDATA            10313 /* libcurl 7.80 */
/* Proxies (values checked with curl_easy_option_by_name on libcurl 7.88.1). */
#define ANCURLOPT_HTTPPROXYTUNNEL       61
#define ANCURLOPT_PROXYAUTH             111
#define ANCURLOPT_PROXYUSERNAME         10175
#define ANCURLOPT_PROXYPASSWORD         10176
#define ANCURLOPT_NOPROXY               10177

/* curl_infotype values passed to the debug callback. */
#define ANCURLINFO_TEXT     0
#define ANCURLINFO_DATA_IN  3

/* CURL_PREREQFUNC_* */
#define ANCURL_PREREQFUNC_OK    0
#define ANCURL_PREREQFUNC_ABORT 1

/* CURLPROTO_* (for the pre-7.85 CURLOPT_PROTOCOLS bitmask). */
#define ANCURLPROTO_HTTP   (1 << 0)
#define ANCURLPROTO_HTTPS  (1 << 1)

/* CURL_HTTP_VERSION_* (values of CURLOPT_HTTP_VERSION and CURLINFO_HTTP_VERSION). */
#define ANCURL_HTTP_VERSION_NONE              0
#define ANCURL_HTTP_VERSION_1_0               1
#define ANCURL_HTTP_VERSION_1_1               2
#define ANCURL_HTTP_VERSION_2_0               3
#define ANCURL_HTTP_VERSION_2TLS              4
#define ANCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE 5
#define ANCURL_HTTP_VERSION_3                 30

/* CURLAUTH_* */
#define ANCURLAUTH_BASIC   (1 << 0)
#define ANCURLAUTH_DIGEST  (1 << 1)

/* curl_easy_pause bits. */
#define ANCURLPAUSE_RECV  (1 << 0)
#define ANCURLPAUSE_SEND  (1 << 2)
#define ANCURLPAUSE_ALL   (ANCURLPAUSE_RECV | ANCURLPAUSE_SEND)
#define ANCURLPAUSE_CONT  0

/* Magic callback return values. */
#define ANCURL_WRITEFUNC_PAUSE 0x10000001
#define ANCURL_READFUNC_ABORT  0x10000000
#define ANCURL_READFUNC_PAUSE  0x10000001
#define ANCURL_SEEKFUNC_OK       0
#define ANCURL_SEEKFUNC_FAIL     1
#define ANCURL_SEEKFUNC_CANTSEEK 2

/* ---- CURLINFO (STRING 0x100000, LONG 0x200000, DOUBLE 0x300000, SLIST 0x400000, OFF_T 0x600000) ---- */
#define ANCURLINFO_EFFECTIVE_URL        (0x100000 + 1)
#define ANCURLINFO_RESPONSE_CODE        (0x200000 + 2)
#define ANCURLINFO_SIZE_UPLOAD_T        (0x600000 + 7)
#define ANCURLINFO_SIZE_DOWNLOAD_T      (0x600000 + 8)
#define ANCURLINFO_REDIRECT_COUNT       (0x200000 + 20)
#define ANCURLINFO_NUM_CONNECTS         (0x200000 + 26)
#define ANCURLINFO_PRIMARY_IP           (0x100000 + 32)
#define ANCURLINFO_PRIMARY_PORT         (0x200000 + 40)
#define ANCURLINFO_HTTP_VERSION         (0x200000 + 46)
#define ANCURLINFO_TOTAL_TIME_T         (0x600000 + 50)
#define ANCURLINFO_NAMELOOKUP_TIME_T    (0x600000 + 51)
#define ANCURLINFO_CONNECT_TIME_T       (0x600000 + 52)
#define ANCURLINFO_PRETRANSFER_TIME_T   (0x600000 + 53)
#define ANCURLINFO_STARTTRANSFER_TIME_T (0x600000 + 54)
#define ANCURLINFO_APPCONNECT_TIME_T    (0x600000 + 56)
#define ANCURLINFO_CERTINFO             (0x400000 + 34)
#define ANCURLINFO_HTTP_CONNECTCODE     (0x200000 + 22) /* the proxy's answer to CONNECT */
#define ANCURLINFO_LOCAL_IP             (0x100000 + 41)
#define ANCURLINFO_LOCAL_PORT           (0x200000 + 42)

/* ---- CURLMoption ---- */
#define ANCURLMOPT_MAXCONNECTS           6
#define ANCURLMOPT_MAX_HOST_CONNECTIONS  7
#define ANCURLMOPT_MAX_TOTAL_CONNECTIONS 13

/* ---- CURLcode ---- */
#define ANCURLE_OK                      0
#define ANCURLE_UNSUPPORTED_PROTOCOL    1
#define ANCURLE_FAILED_INIT             2
#define ANCURLE_URL_MALFORMAT           3
#define ANCURLE_NOT_BUILT_IN            4
#define ANCURLE_COULDNT_RESOLVE_PROXY   5
#define ANCURLE_COULDNT_RESOLVE_HOST    6
#define ANCURLE_COULDNT_CONNECT         7
#define ANCURLE_WEIRD_SERVER_REPLY      8
#define ANCURLE_HTTP2                   16
#define ANCURLE_PARTIAL_FILE            18
#define ANCURLE_HTTP_RETURNED_ERROR     22
#define ANCURLE_WRITE_ERROR             23
#define ANCURLE_UPLOAD_FAILED           25
#define ANCURLE_READ_ERROR              26
#define ANCURLE_OUT_OF_MEMORY           27
#define ANCURLE_OPERATION_TIMEDOUT      28
#define ANCURLE_RANGE_ERROR             33
#define ANCURLE_SSL_CONNECT_ERROR       35
#define ANCURLE_ABORTED_BY_CALLBACK     42
#define ANCURLE_BAD_FUNCTION_ARGUMENT   43
#define ANCURLE_INTERFACE_FAILED        45
#define ANCURLE_TOO_MANY_REDIRECTS      47
#define ANCURLE_UNKNOWN_OPTION          48
#define ANCURLE_GOT_NOTHING             52
#define ANCURLE_SSL_ENGINE_NOTFOUND     53
#define ANCURLE_SSL_ENGINE_SETFAILED    54
#define ANCURLE_SEND_ERROR              55
#define ANCURLE_RECV_ERROR              56
#define ANCURLE_SSL_CERTPROBLEM         58
#define ANCURLE_SSL_CIPHER              59
#define ANCURLE_PEER_FAILED_VERIFICATION 60
#define ANCURLE_BAD_CONTENT_ENCODING    61
#define ANCURLE_FILESIZE_EXCEEDED       63
#define ANCURLE_SEND_FAIL_REWIND        65
#define ANCURLE_SSL_ENGINE_INITFAILED   66
#define ANCURLE_LOGIN_DENIED            67
#define ANCURLE_SSL_CACERT_BADFILE      77
#define ANCURLE_SSL_SHUTDOWN_FAILED     80
#define ANCURLE_SSL_CRL_BADFILE         82
#define ANCURLE_SSL_ISSUER_ERROR        83
#define ANCURLE_SSL_PINNEDPUBKEYNOTMATCH 90
#define ANCURLE_SSL_INVALIDCERTSTATUS   91
#define ANCURLE_HTTP2_STREAM            92
#define ANCURLE_AUTH_ERROR              94
#define ANCURLE_HTTP3                   95
#define ANCURLE_QUIC_CONNECT_ERROR      96
#define ANCURLE_PROXY                   97
#define ANCURLE_SSL_CLIENTCERT          98
#define ANCURLE_UNRECOVERABLE_POLL      99
#define ANCURLE_TOO_LARGE               100

/* CURLMcode */
#define ANCURLM_OK 0

/* CURL_ERROR_SIZE: the size CURLOPT_ERRORBUFFER must have. */
#define ANCURL_ERROR_SIZE 256

/* ---- Loading ---- */

/* Loads libcurl.so.4 and resolves every function below (once; later calls return the first
   result). Calls curl_global_init(CURL_GLOBAL_ALL) once. Returns 0 on success; otherwise fills
   `err` (if not NULL) with a message naming the library and the failing step and returns -1. */
int ancurl_load(char *err, size_t errlen);

/* curl_version(), e.g. "libcurl/7.88.1 OpenSSL/3.0.17 ...". */
const char *ancurl_version(void);
/* curl_version_info()'s version_num: 0xXXYYZZ for libcurl XX.YY.ZZ (0x075801 is 7.88.1). */
unsigned int ancurl_version_number(void);

/* ---- Easy interface ---- */
ancurl_easy *ancurl_easy_init(void);
void ancurl_easy_cleanup(ancurl_easy *easy);
void ancurl_easy_reset(ancurl_easy *easy);
int ancurl_easy_pause(ancurl_easy *easy, int bitmask);
const char *ancurl_easy_strerror(int code);

int ancurl_easy_setopt_long(ancurl_easy *easy, int option, long value);
int ancurl_easy_setopt_ptr(ancurl_easy *easy, int option, const void *value);
int ancurl_easy_setopt_off_t(ancurl_easy *easy, int option, int64_t value);
int ancurl_easy_setopt_func(ancurl_easy *easy, int option, ancurl_data_callback callback);
int ancurl_easy_setopt_seek(ancurl_easy *easy, ancurl_seek_callback callback);

int ancurl_easy_getinfo_long(ancurl_easy *easy, int info, long *value);
int ancurl_easy_getinfo_off_t(ancurl_easy *easy, int info, int64_t *value);
/* For CURLINFO_STRING and pointer infos (the string belongs to the handle). */
int ancurl_easy_getinfo_ptr(ancurl_easy *easy, int info, const char **value);

/* A CURLOPTTYPE_BLOB option (e.g. CURLOPT_CAINFO_BLOB): curl copies the bytes
   (CURL_BLOB_COPY). Returns CURLE_UNKNOWN_OPTION (48) on a libcurl without the option. */
int ancurl_easy_setopt_blob(ancurl_easy *easy, int option, const void *data, size_t length);

/* CURLOPT_PREREQFUNCTION. Returns CURLE_UNKNOWN_OPTION (48) on a libcurl older than 7.80. */
int ancurl_easy_setopt_prereq(ancurl_easy *easy, ancurl_prereq_callback callback);

/* CURLOPT_DEBUGFUNCTION (called only while CURLOPT_VERBOSE is on). */
int ancurl_easy_setopt_debug(ancurl_easy *easy, ancurl_debug_callback callback);

/* CURLINFO_CERTINFO (with CURLOPT_CERTINFO set): the number of certificates of the chain the
   server presented on the connection this transfer made (leaf first), or 0 when none was
   gathered (a reused connection, cleartext, or CURLOPT_CERTINFO unset). */
int ancurl_easy_certinfo_count(ancurl_easy *easy);
/* The PEM text of certificate `index` of CURLINFO_CERTINFO (its "Cert:" field), or NULL. The
   string belongs to the handle: copy it before the handle moves on. */
const char *ancurl_easy_certinfo_pem(ancurl_easy *easy, int index);

/* ---- Multi interface ---- */
ancurl_multi *ancurl_multi_init(void);
int ancurl_multi_cleanup(ancurl_multi *multi);
int ancurl_multi_add(ancurl_multi *multi, ancurl_easy *easy);
int ancurl_multi_remove(ancurl_multi *multi, ancurl_easy *easy);
int ancurl_multi_perform(ancurl_multi *multi, int *running);
/* curl_multi_poll with no extra descriptors. */
int ancurl_multi_poll(ancurl_multi *multi, int timeout_ms, int *numfds);
/* curl_multi_wakeup: the one multi function that may be called from any thread. */
int ancurl_multi_wakeup(ancurl_multi *multi);
int ancurl_multi_setopt_long(ancurl_multi *multi, int option, long value);
/* Reads the next CURLMSG_DONE message: returns 1 and fills `easy` and `result`, or 0 when none
   is left (other message kinds are skipped). */
int ancurl_multi_info_read(ancurl_multi *multi, ancurl_easy **easy, int *result);

/* ---- String lists ---- */
ancurl_slist *ancurl_slist_append(ancurl_slist *list, const char *string);
void ancurl_slist_free(ancurl_slist *list);

/* ---- Connection notes (CCurlConnectionNotes.c) ---- */

/* TLS handshake notes of the last TLS connection an easy handle made (bits, and the last alert
   received from the server in bits 8-15). */
#define ANCURL_TLS_CERTIFICATE_REQUESTED 1u /* the server sent a CertificateRequest */
#define ANCURL_TLS_SENT_NO_CERTIFICATE   2u /* we answered with an empty Certificate */
#define ANCURL_TLS_SENT_CERTIFICATE      4u /* we answered with a certificate */
#define ANCURL_TLS_ALERT_RECEIVED        8u /* the server sent an alert (its description in bits 8-15) */
/* Sets CURLOPT_SSL_CTX_FUNCTION so that every new TLS connection of `easy` records its notes
   (OpenSSL's message callback, through the libssl libcurl loaded). Returns 0, a CURLcode, or -1
   when no libssl with the needed functions is loaded (then nothing is set). */
int ancurl_tls_notes_install(ancurl_easy *easy);
/* The notes recorded for `easy` since the last call (0 when none), and forgets them. */
unsigned ancurl_tls_notes_take(ancurl_easy *easy);
/* Sets CURLOPT_CLOSESOCKETFUNCTION: before the socket of an armed connection is closed, what is
   pending in its receive buffer (up to 64 KiB) is read and kept. Returns 0 or a CURLcode. */
int ancurl_drain_install(ancurl_easy *easy);
/* Arms the connection whose local port is `port` (as CURLOPT_PREREQFUNCTION reports it). */
void ancurl_drain_arm(int port);
/* Copies what was drained from the connection on local port `port` when curl closed it (0 bytes
   if it was not closed or had nothing pending), and disarms it. */
size_t ancurl_drain_take(int port, void *buffer, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif

/* Content decoders over dlopen'd zlib, brotli and zstd (ANContentDecoder.h). */
#include "ANContentDecoder.h"
/* ---- WebSocket (issue 24): permessage-deflate over zlib and raw I/O on CONNECT_ONLY ---- */
#include "ANWebSocket.h"
/* Request trailers: CURLOPT_TRAILERFUNCTION (ANTrailers.h) */
#include "ANTrailers.h"
/* HTTP/2 multiplexing options (issue 23): CURLMOPT_PIPELINING, _MAX_CONCURRENT_STREAMS, CURLOPT_PIPEWAIT */
#include "ANHTTP2.h"
/* A TLS send that fails because the server answered and reset the connection ends the body (ANTLSWriteGuard.h) */
#include "ANTLSWriteGuard.h"
