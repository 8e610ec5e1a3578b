/* See include/ANTLSWriteGuard.h. */
#include "ANTLSWriteGuard.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct an_bio an_bio;
typedef struct an_bio_method an_bio_method;
typedef struct an_ssl an_ssl;

/* OpenSSL constants (bio.h). */
#define AN_BIO_TYPE_FILTER 0x0200
#define AN_BIO_FLAGS_RWS 0x07
#define AN_BIO_FLAGS_SHOULD_RETRY 0x08

/* CURLINFO_TLS_SSL_PTR (CURLINFO_PTR + 45) and CURLSSLBACKEND_OPENSSL. */
#define AN_CURLINFO_TLS_SSL_PTR (0x400000 + 45)
#define AN_CURLSSLBACKEND_OPENSSL 1

/* struct curl_tlssessioninfo, as in curl/curl.h. */
struct an_tls_session_info {
    int backend;
    void *internals;
};

static an_bio_method *(*p_meth_new)(int, const char *);
static int (*p_meth_set_write)(an_bio_method *, int (*)(an_bio *, const char *, int));
static int (*p_meth_set_read)(an_bio_method *, int (*)(an_bio *, char *, int));
static int (*p_meth_set_ctrl)(an_bio_method *, long (*)(an_bio *, int, long, void *));
static int (*p_meth_set_create)(an_bio_method *, int (*)(an_bio *));
static int (*p_meth_set_destroy)(an_bio_method *, int (*)(an_bio *));
static int (*p_get_new_index)(void);
static an_bio *(*p_new)(const an_bio_method *);
static an_bio *(*p_push)(an_bio *, an_bio *);
static an_bio *(*p_next)(an_bio *);
static int (*p_write)(an_bio *, const void *, int);
static int (*p_read)(an_bio *, void *, int);
static long (*p_ctrl)(an_bio *, int, long, void *);
static int (*p_up_ref)(an_bio *);
static void (*p_set_init)(an_bio *, int);
static void (*p_set_data)(an_bio *, void *);
static void *(*p_get_data)(an_bio *);
static void (*p_set_flags)(an_bio *, int);
static void (*p_clear_flags)(an_bio *, int);
static int (*p_test_flags)(const an_bio *, int);
static int (*p_get_retry_reason)(an_bio *);
static void (*p_set_retry_reason)(an_bio *, int);
static int (*p_method_type)(const an_bio *);
static an_bio *(*p_ssl_get_wbio)(const an_ssl *);
static void (*p_ssl_set0_wbio)(an_ssl *, an_bio *);

static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static an_bio_method *guard_method;
static int guard_type = -1;

/* What the guard keeps per connection. */
struct an_guard {
    int swallowing; /* a write failed with EPIPE/ECONNRESET: every write is dropped since */
};

static int guard_write(an_bio *bio, const char *buffer, int length) {
    struct an_guard *guard = p_get_data(bio);
    an_bio *next = p_next(bio);
    p_clear_flags(bio, AN_BIO_FLAGS_RWS | AN_BIO_FLAGS_SHOULD_RETRY);
    if (guard == NULL || next == NULL) return -1;
    if (guard->swallowing) return length;
    errno = 0;
    int written = p_write(next, buffer, length);
    if (written > 0) return written;
    int reason = errno;
    if (p_test_flags(next, AN_BIO_FLAGS_SHOULD_RETRY)) {
        p_set_flags(bio, p_test_flags(next, AN_BIO_FLAGS_RWS | AN_BIO_FLAGS_SHOULD_RETRY));
        p_set_retry_reason(bio, p_get_retry_reason(next));
        return written;
    }
    if (reason == EPIPE || reason == ECONNRESET) {
        guard->swallowing = 1;
        return length;
    }
    return written;
}

static int guard_read(an_bio *bio, char *buffer, int length) {
    an_bio *next = p_next(bio);
    p_clear_flags(bio, AN_BIO_FLAGS_RWS | AN_BIO_FLAGS_SHOULD_RETRY);
    if (next == NULL) return -1;
    int count = p_read(next, buffer, length);
    if (count <= 0) {
        p_set_flags(bio, p_test_flags(next, AN_BIO_FLAGS_RWS | AN_BIO_FLAGS_SHOULD_RETRY));
        p_set_retry_reason(bio, p_get_retry_reason(next));
    }
    return count;
}

static long guard_ctrl(an_bio *bio, int command, long number, void *pointer) {
    an_bio *next = p_next(bio);
    if (next == NULL) return 0;
    return p_ctrl(next, command, number, pointer);
}

static int guard_create(an_bio *bio) {
    struct an_guard *guard = calloc(1, sizeof *guard);
    if (guard == NULL) return 0;
    p_set_data(bio, guard);
    p_set_init(bio, 1);
    return 1;
}

static int guard_destroy(an_bio *bio) {
    free(p_get_data(bio));
    p_set_data(bio, NULL);
    return 1;
}

#define AN_RESOLVE(handle, pointer, name)                    \
    do {                                                     \
        *(void **)(&pointer) = dlsym(handle, name);          \
        if (pointer == NULL) return;                         \
    } while (0)

static void load_guard(void) {
    void *crypto = NULL;
    void *ssl = NULL;
    static const char *cryptoNames[] = {"libcrypto.so.3", "libcrypto.so.1.1"};
    static const char *sslNames[] = {"libssl.so.3", "libssl.so.1.1"};
    for (size_t index = 0; index < 2 && (crypto == NULL || ssl == NULL); index++) {
        if (crypto == NULL) crypto = dlopen(cryptoNames[index], RTLD_NOW | RTLD_NOLOAD);
        if (ssl == NULL) ssl = dlopen(sslNames[index], RTLD_NOW | RTLD_NOLOAD);
    }
    if (crypto == NULL || ssl == NULL) return; /* the handles stay open: the pointers live as long as the process */
    AN_RESOLVE(crypto, p_meth_new, "BIO_meth_new");
    AN_RESOLVE(crypto, p_meth_set_write, "BIO_meth_set_write");
    AN_RESOLVE(crypto, p_meth_set_read, "BIO_meth_set_read");
    AN_RESOLVE(crypto, p_meth_set_ctrl, "BIO_meth_set_ctrl");
    AN_RESOLVE(crypto, p_meth_set_create, "BIO_meth_set_create");
    AN_RESOLVE(crypto, p_meth_set_destroy, "BIO_meth_set_destroy");
    AN_RESOLVE(crypto, p_get_new_index, "BIO_get_new_index");
    AN_RESOLVE(crypto, p_new, "BIO_new");
    AN_RESOLVE(crypto, p_push, "BIO_push");
    AN_RESOLVE(crypto, p_next, "BIO_next");
    AN_RESOLVE(crypto, p_write, "BIO_write");
    AN_RESOLVE(crypto, p_read, "BIO_read");
    AN_RESOLVE(crypto, p_ctrl, "BIO_ctrl");
    AN_RESOLVE(crypto, p_up_ref, "BIO_up_ref");
    AN_RESOLVE(crypto, p_set_init, "BIO_set_init");
    AN_RESOLVE(crypto, p_set_data, "BIO_set_data");
    AN_RESOLVE(crypto, p_get_data, "BIO_get_data");
    AN_RESOLVE(crypto, p_set_flags, "BIO_set_flags");
    AN_RESOLVE(crypto, p_clear_flags, "BIO_clear_flags");
    AN_RESOLVE(crypto, p_test_flags, "BIO_test_flags");
    AN_RESOLVE(crypto, p_get_retry_reason, "BIO_get_retry_reason");
    AN_RESOLVE(crypto, p_set_retry_reason, "BIO_set_retry_reason");
    AN_RESOLVE(crypto, p_method_type, "BIO_method_type");
    AN_RESOLVE(ssl, p_ssl_get_wbio, "SSL_get_wbio");
    AN_RESOLVE(ssl, p_ssl_set0_wbio, "SSL_set0_wbio");
    int type = p_get_new_index();
    if (type < 0) return;
    an_bio_method *method = p_meth_new(type | AN_BIO_TYPE_FILTER, "asyncnetworking write guard");
    if (method == NULL) return;
    p_meth_set_write(method, guard_write);
    p_meth_set_read(method, guard_read);
    p_meth_set_ctrl(method, guard_ctrl);
    p_meth_set_create(method, guard_create);
    p_meth_set_destroy(method, guard_destroy);
    guard_type = type | AN_BIO_TYPE_FILTER;
    guard_method = method;
}

int ancurl_tls_write_guard_install(ancurl_easy *easy) {
    pthread_once(&guard_once, load_guard);
    if (guard_method == NULL) return 0;
    const char *raw = NULL;
    if (ancurl_easy_getinfo_ptr(easy, AN_CURLINFO_TLS_SSL_PTR, &raw) != 0 || raw == NULL) return 0;
    const struct an_tls_session_info *info = (const struct an_tls_session_info *)raw;
    if (info->backend != AN_CURLSSLBACKEND_OPENSSL || info->internals == NULL) return 0;
    an_ssl *ssl = info->internals;
    an_bio *wbio = p_ssl_get_wbio(ssl);
    if (wbio == NULL) return 0;
    if (p_method_type(wbio) == guard_type) {
        struct an_guard *guard = p_get_data(wbio);
        return guard != NULL && guard->swallowing ? -1 : 1;
    }
    an_bio *filter = p_new(guard_method);
    if (filter == NULL) return 0;
    /* SSL_set0_wbio frees one reference of the old write BIO (libcurl's, shared with the read
       side): the chain takes one of its own first. */
    p_up_ref(wbio);
    p_push(filter, wbio);
    p_ssl_set0_wbio(ssl, filter);
    return 1;
}
