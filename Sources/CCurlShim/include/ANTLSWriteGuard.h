/*
 * ANTLSWriteGuard: a send that fails because the server answered and reset the connection is the
 * end of the request body, not the end of the exchange — over TLS too.
 *
 * A server that answers an upload at once (a 307, a 413) and closes without reading the body
 * makes the kernel reset the connection; the client's next send fails with EPIPE or ECONNRESET,
 * though the answer is already in the socket's receive buffer. libcurl 7.88 then fails the
 * transfer and frees the TLS session, so the answer cannot be decrypted any more (over cleartext
 * the close callback still reads it: CCurlConnectionNotes.c). The guard is an OpenSSL filter BIO
 * put in front of the write side of the transfer's SSL object (found with CURLINFO_TLS_SSL_PTR
 * once the connection is up): a write failing with EPIPE or ECONNRESET, and every write after it
 * on that connection, is reported as written and dropped. libcurl then goes on to read, and reads
 * the answer (or, when there is none, fails on the read with the same reset). Such a connection
 * is dead: installing on it again says so, and the caller starts over on a new connection. The
 * read side is untouched. libssl and libcrypto are found with
 * dlopen(RTLD_NOLOAD): the ones libcurl loaded; with another TLS library nothing is installed.
 */
#ifndef ANTLSWRITEGUARD_H
#define ANTLSWRITEGUARD_H

#include "CCurlShim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the guard on the TLS connection `easy` is about to send on (call from
   CURLOPT_PREREQFUNCTION). Returns 1 when the guard is in place, 0 when it cannot be (not
   OpenSSL, no TLS, symbols missing), -1 when the connection's guard already dropped a write that
   failed (the connection is dead). */
int ancurl_tls_write_guard_install(ancurl_easy *easy);

#ifdef __cplusplus
}
#endif

#endif
