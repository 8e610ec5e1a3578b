/*
 * Connection notes: what libcurl does not report about a connection that failed.
 *
 * 1. TLS handshake notes (CURLOPT_SSL_CTX_FUNCTION + OpenSSL's message callback). For each new
 *    TLS connection an easy handle makes, records whether the server sent a CertificateRequest,
 *    whether we answered with an empty or a non-empty Certificate, and the last alert received.
 *    A TLS 1.3 server that refuses the client's certificate says so with an alert right after the
 *    handshake and closes; when curl writes the request before reading, the write fails (EPIPE,
 *    ECONNRESET, "bad write retry") and the alert is never read. The handshake notes still tell
 *    that the server asked for a certificate. libssl's two functions are found with
 *    dlopen(RTLD_NOLOAD): the library libcurl itself loaded (nothing is loaded here).
 *
 * 2. Early-response drain (CURLOPT_CLOSESOCKETFUNCTION). When a server answers a request (307,
 *    413, 401...) before reading its body and closes, curl's next send can fail before curl read
 *    the answer, which is then still in the socket's receive buffer when curl closes the socket.
 *    For a connection "armed" by the transfer that is sending a body (named by its local port, as
 *    CURLOPT_PREREQFUNCTION reports it for new and reused connections alike; curl 7.88's
 *    CURLINFO_ACTIVESOCKET only knows a connection after its transfer ended), the close callback
 *    first reads what is pending (non-blocking, up to a bound) and keeps it for the transfer.
 *
 * Both tables are keyed by values that are never dereferenced (an easy handle's address, a local
 * port), under one mutex: libcurl may call the callbacks for a connection after the easy handle
 * that made it moved on, and several loops (managers) run at once.
 */
#include "CCurlShim.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define ANCURLOPT_SSL_CTX_FUNCTION 20108
#define ANCURLOPT_SSL_CTX_DATA 10109
#define ANCURLOPT_CLOSESOCKETFUNCTION 20208
#define ANCURLOPT_CLOSESOCKETDATA 10209

/* OpenSSL constants (ssl3.h, tls1.h, ssl.h). */
#define AN_SSL3_RT_ALERT 21
#define AN_SSL3_RT_HANDSHAKE 22
#define AN_SSL3_MT_CERTIFICATE 11
#define AN_SSL3_MT_CERTIFICATE_REQUEST 13
#define AN_TLS1_3_VERSION 0x0304
#define AN_SSL_CTRL_SET_MSG_CALLBACK_ARG 16

typedef void (*an_msg_callback)(int, int, int, const void *, size_t, void *, void *);
static void (*p_set_msg_callback)(void *, an_msg_callback);
static long (*p_ctx_ctrl)(void *, int, long, void *);
static pthread_once_t ssl_once = PTHREAD_ONCE_INIT;

static void load_ssl(void) {
    static const char *names[] = {"libssl.so.3", "libssl.so.1.1", "libssl.so"};
    for (size_t index = 0; index < sizeof names / sizeof names[0]; index++) {
        void *handle = dlopen(names[index], RTLD_NOW | RTLD_NOLOAD);
        if (handle == NULL) continue;
        void *set = dlsym(handle, "SSL_CTX_set_msg_callback");
        void *ctrl = dlsym(handle, "SSL_CTX_ctrl");
        if (set != NULL && ctrl != NULL) {
            *(void **)(&p_set_msg_callback) = set;
            *(void **)(&p_ctx_ctrl) = ctrl;
            return; /* the handle stays open: the pointers live as long as the process */
        }
        dlclose(handle);
    }
}

#define AN_SLOTS 64
#define AN_DRAIN_LIMIT (64 * 1024)

struct an_tls_slot {
    const void *key;
    unsigned notes;
};
struct an_drain_slot {
    int port;    /* the connection's local port; -1: free */
    int drained; /* the close callback ran */
    unsigned char *bytes;
    size_t count;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct an_tls_slot tls_slots[AN_SLOTS];
static struct an_drain_slot drain_slots[AN_SLOTS];
static int drain_initialized;

/* The slot for `key` (created if `create`; the oldest-hashed one is evicted when full). Lock held. */
static struct an_tls_slot *tls_slot(const void *key, int create) {
    size_t start = ((uintptr_t)key >> 4) % AN_SLOTS;
    struct an_tls_slot *empty = NULL;
    for (size_t step = 0; step < AN_SLOTS; step++) {
        struct an_tls_slot *slot = &tls_slots[(start + step) % AN_SLOTS];
        if (slot->key == key) return slot;
        if (slot->key == NULL && empty == NULL) empty = slot;
    }
    if (!create) return NULL;
    struct an_tls_slot *slot = empty != NULL ? empty : &tls_slots[start];
    slot->key = key;
    slot->notes = 0;
    return slot;
}

static void note(const void *key, unsigned bits, int replaceAlert) {
    pthread_mutex_lock(&lock);
    struct an_tls_slot *slot = tls_slot(key, 1);
    if (replaceAlert) slot->notes &= ~0xFF00u;
    slot->notes |= bits;
    pthread_mutex_unlock(&lock);
}

/* Whether a Certificate handshake message (type, 3-byte length, body) carries no certificate. */
static int certificate_is_empty(int version, const unsigned char *message, size_t length) {
    size_t offset = 4;
    if (version == AN_TLS1_3_VERSION) {
        if (length < offset + 1) return 1;
        offset += 1 + message[offset]; /* certificate_request_context */
    }
    if (length < offset + 3) return 1;
    size_t list = ((size_t)message[offset] << 16) | ((size_t)message[offset + 1] << 8) | message[offset + 2];
    return list == 0;
}

static void message_callback(int write_p, int version, int content_type, const void *buf, size_t len, void *ssl,
                             void *arg) {
    (void)ssl;
    const unsigned char *bytes = buf;
    if (arg == NULL || bytes == NULL || len < 2) return;
    if (content_type == AN_SSL3_RT_HANDSHAKE) {
        if (!write_p && bytes[0] == AN_SSL3_MT_CERTIFICATE_REQUEST) {
            note(arg, ANCURL_TLS_CERTIFICATE_REQUESTED, 0);
        } else if (write_p && bytes[0] == AN_SSL3_MT_CERTIFICATE) {
            note(arg, certificate_is_empty(version, bytes, len) ? ANCURL_TLS_SENT_NO_CERTIFICATE
                                                                : ANCURL_TLS_SENT_CERTIFICATE, 0);
        }
    } else if (content_type == AN_SSL3_RT_ALERT && !write_p) {
        note(arg, ANCURL_TLS_ALERT_RECEIVED | ((unsigned)bytes[1] << 8), 1);
    }
}

/* curl_ssl_ctx_callback: CURLcode (*)(CURL *, void *ssl_ctx, void *userptr). */
static int ssl_ctx_callback(ancurl_easy *easy, void *ssl_ctx, void *userptr) {
    (void)userptr;
    if (p_set_msg_callback != NULL && p_ctx_ctrl != NULL && ssl_ctx != NULL) {
        p_set_msg_callback(ssl_ctx, message_callback);
        p_ctx_ctrl(ssl_ctx, AN_SSL_CTRL_SET_MSG_CALLBACK_ARG, 0, easy);
    }
    return 0;
}

int ancurl_tls_notes_install(ancurl_easy *easy) {
    pthread_once(&ssl_once, load_ssl);
    if (p_set_msg_callback == NULL || p_ctx_ctrl == NULL) return -1;
    int code = ancurl_easy_setopt_ptr(easy, ANCURLOPT_SSL_CTX_FUNCTION, (const void *)ssl_ctx_callback);
    if (code != 0) return code;
    return ancurl_easy_setopt_ptr(easy, ANCURLOPT_SSL_CTX_DATA, NULL);
}

unsigned ancurl_tls_notes_take(ancurl_easy *easy) {
    pthread_mutex_lock(&lock);
    struct an_tls_slot *slot = tls_slot(easy, 0);
    unsigned notes = 0;
    if (slot != NULL) {
        notes = slot->notes;
        slot->key = NULL;
        slot->notes = 0;
    }
    pthread_mutex_unlock(&lock);
    return notes;
}

/* ---- Early-response drain ---- */

static void drain_init_locked(void) {
    if (drain_initialized) return;
    for (size_t index = 0; index < AN_SLOTS; index++) drain_slots[index].port = -1;
    drain_initialized = 1;
}

static struct an_drain_slot *drain_slot(int port) {
    for (size_t index = 0; index < AN_SLOTS; index++) {
        if (drain_slots[index].port == port) return &drain_slots[index];
    }
    return NULL;
}

static void drain_clear(struct an_drain_slot *slot) {
    free(slot->bytes);
    slot->bytes = NULL;
    slot->count = 0;
    slot->drained = 0;
    slot->port = -1;
}

/* The local port of socket `fd`, or -1. */
static int local_port(int fd) {
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) return -1;
    if (address.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&address)->sin_port);
    if (address.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&address)->sin6_port);
    return -1;
}

/* curl_closesocket_callback: int (*)(void *clientp, curl_socket_t item). */
static int close_socket_callback(void *clientp, int fd) {
    (void)clientp;
    int port = local_port(fd);
    pthread_mutex_lock(&lock);
    drain_init_locked();
    struct an_drain_slot *slot = port > 0 ? drain_slot(port) : NULL;
    if (slot != NULL && !slot->drained) {
        slot->drained = 1;
        slot->bytes = malloc(AN_DRAIN_LIMIT);
        while (slot->bytes != NULL && slot->count < AN_DRAIN_LIMIT) {
            ssize_t got = recv(fd, slot->bytes + slot->count, AN_DRAIN_LIMIT - slot->count, MSG_DONTWAIT);
            if (got > 0) {
                slot->count += (size_t)got;
            } else if (got < 0 && errno == EINTR) {
                continue;
            } else {
                break; /* 0 (closed), EAGAIN (nothing more) or an error: what was read is kept */
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return close(fd) == 0 ? 0 : 1;
}

int ancurl_drain_install(ancurl_easy *easy) {
    int code = ancurl_easy_setopt_ptr(easy, ANCURLOPT_CLOSESOCKETFUNCTION, (const void *)close_socket_callback);
    if (code != 0) return code;
    return ancurl_easy_setopt_ptr(easy, ANCURLOPT_CLOSESOCKETDATA, NULL);
}

void ancurl_drain_arm(int port) {
    if (port <= 0) return;
    pthread_mutex_lock(&lock);
    drain_init_locked();
    struct an_drain_slot *slot = drain_slot(port);
    if (slot == NULL) slot = drain_slot(-1);
    if (slot == NULL) {
        /* Full: the arms of transfers that ended without taking theirs are dropped. */
        for (size_t index = 0; index < AN_SLOTS; index++) drain_clear(&drain_slots[index]);
        slot = &drain_slots[0];
    }
    drain_clear(slot);
    slot->port = port;
    pthread_mutex_unlock(&lock);
}

size_t ancurl_drain_take(int port, void *buffer, size_t capacity) {
    if (port <= 0) return 0;
    pthread_mutex_lock(&lock);
    drain_init_locked();
    size_t count = 0;
    struct an_drain_slot *slot = drain_slot(port);
    if (slot != NULL) {
        count = slot->count < capacity ? slot->count : capacity;
        if (count > 0 && buffer != NULL) memcpy(buffer, slot->bytes, count);
        drain_clear(slot);
    }
    pthread_mutex_unlock(&lock);
    return count;
}

