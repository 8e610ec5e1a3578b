/*
 * CCurlShim: see include/CCurlShim.h. Function pointers are filled once, under pthread_once, by
 * dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL) and dlsym. libcurl's variadic curl_easy_setopt,
 * curl_easy_getinfo and curl_multi_setopt are called here with one argument of the right type, so
 * Swift never calls a variadic C function.
 */
#include "CCurlShim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ANCURL_LIBRARY "libcurl.so.4"
#define ANCURL_GLOBAL_ALL 3L /* CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32 */
#define ANCURLMSG_DONE 1

/* struct CURLMsg, laid out as in multi.h. */
struct ancurl_msg {
    int msg;
    ancurl_easy *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

static int (*p_global_init)(long);
static char *(*p_version)(void);
static const void *(*p_version_info)(int);
static ancurl_easy *(*p_easy_init)(void);
static void (*p_easy_cleanup)(ancurl_easy *);
static void (*p_easy_reset)(ancurl_easy *);
static int (*p_easy_pause)(ancurl_easy *, int);
static const char *(*p_easy_strerror)(int);
static int (*p_easy_setopt)(ancurl_easy *, int, ...);
static int (*p_easy_getinfo)(ancurl_easy *, int, ...);
static ancurl_multi *(*p_multi_init)(void);
static int (*p_multi_cleanup)(ancurl_multi *);
static int (*p_multi_add)(ancurl_multi *, ancurl_easy *);
static int (*p_multi_remove)(ancurl_multi *, ancurl_easy *);
static int (*p_multi_perform)(ancurl_multi *, int *);
static int (*p_multi_poll)(ancurl_multi *, void *, unsigned int, int, int *);
static int (*p_multi_wakeup)(ancurl_multi *);
static int (*p_multi_setopt)(ancurl_multi *, int, ...);
static struct ancurl_msg *(*p_multi_info_read)(ancurl_multi *, int *);
static ancurl_slist *(*p_slist_append)(ancurl_slist *, const char *);
static void (*p_slist_free_all)(ancurl_slist *);

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

#define RESOLVE(pointer, name)                                                                   \
    do {                                                                                         \
        *(void **)(&pointer) = dlsym(handle, name);                                              \
        if (pointer == NULL) {                                                                   \
            snprintf(load_error, sizeof load_error,                                              \
                     "%s does not export %s (libcurl 7.68 or later is required)", ANCURL_LIBRARY, \
                     name);                                                                      \
            return;                                                                              \
        }                                                                                        \
    } while (0)

static void load_library(void) {
    void *handle = dlopen(ANCURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load %s: %s", ANCURL_LIBRARY,
                 reason != NULL ? reason : "dlopen failed");
        return;
    }
    RESOLVE(p_global_init, "curl_global_init");
    RESOLVE(p_version, "curl_version");
    RESOLVE(p_version_info, "curl_version_info");
    RESOLVE(p_easy_init, "curl_easy_init");
    RESOLVE(p_easy_cleanup, "curl_easy_cleanup");
    RESOLVE(p_easy_reset, "curl_easy_reset");
    RESOLVE(p_easy_pause, "curl_easy_pause");
    RESOLVE(p_easy_strerror, "curl_easy_strerror");
    RESOLVE(p_easy_setopt, "curl_easy_setopt");
    RESOLVE(p_easy_getinfo, "curl_easy_getinfo");
    RESOLVE(p_multi_init, "curl_multi_init");
    RESOLVE(p_multi_cleanup, "curl_multi_cleanup");
    RESOLVE(p_multi_add, "curl_multi_add_handle");
    RESOLVE(p_multi_remove, "curl_multi_remove_handle");
    RESOLVE(p_multi_perform, "curl_multi_perform");
    RESOLVE(p_multi_poll, "curl_multi_poll");
    RESOLVE(p_multi_wakeup, "curl_multi_wakeup");
    RESOLVE(p_multi_setopt, "curl_multi_setopt");
    RESOLVE(p_multi_info_read, "curl_multi_info_read");
    RESOLVE(p_slist_append, "curl_slist_append");
    RESOLVE(p_slist_free_all, "curl_slist_free_all");
    /* The handle is never closed: the function pointers live as long as the process. */
    int code = p_global_init(ANCURL_GLOBAL_ALL);
    if (code != 0) {
        snprintf(load_error, sizeof load_error, "curl_global_init in %s failed with CURLcode %d",
                 ANCURL_LIBRARY, code);
        return;
    }
    load_status = 0;
}

int ancurl_load(char *err, size_t errlen) {
    pthread_once(&load_once, load_library);
    if (load_status != 0 && err != NULL && errlen > 0) {
        snprintf(err, errlen, "%s", load_error);
    }
    return load_status;
}

const char *ancurl_version(void) { return p_version(); }

/* The start of struct curl_version_info_data (curlver.h), the same in every age. */
struct ancurl_version_info_prefix {
    int age;
    const char *version;
    unsigned int version_num;
};

unsigned int ancurl_version_number(void) {
    const struct ancurl_version_info_prefix *info = p_version_info(0 /* CURLVERSION_FIRST */);
    return info != NULL ? info->version_num : 0;
}

ancurl_easy *ancurl_easy_init(void) { return p_easy_init(); }
void ancurl_easy_cleanup(ancurl_easy *easy) { p_easy_cleanup(easy); }
void ancurl_easy_reset(ancurl_easy *easy) { p_easy_reset(easy); }
int ancurl_easy_pause(ancurl_easy *easy, int bitmask) { return p_easy_pause(easy, bitmask); }
const char *ancurl_easy_strerror(int code) { return p_easy_strerror(code); }

int ancurl_easy_setopt_long(ancurl_easy *easy, int option, long value) {
    return p_easy_setopt(easy, option, value);
}

int ancurl_easy_setopt_ptr(ancurl_easy *easy, int option, const void *value) {
    return p_easy_setopt(easy, option, value);
}

int ancurl_easy_setopt_off_t(ancurl_easy *easy, int option, int64_t value) {
    return p_easy_setopt(easy, option, value);
}

int ancurl_easy_setopt_func(ancurl_easy *easy, int option, ancurl_data_callback callback) {
    return p_easy_setopt(easy, option, callback);
}

int ancurl_easy_setopt_seek(ancurl_easy *easy, ancurl_seek_callback callback) {
    return p_easy_setopt(easy, ANCURLOPT_SEEKFUNCTION, callback);
}

/* struct curl_blob, laid out as in curl/easy.h. */
struct ancurl_blob {
    void *data;
    size_t len;
    unsigned int flags;
};
#define ANCURL_BLOB_COPY 1

int ancurl_easy_setopt_blob(ancurl_easy *easy, int option, const void *data, size_t length) {
    struct ancurl_blob blob = {(void *)data, length, ANCURL_BLOB_COPY};
    return p_easy_setopt(easy, option, &blob);
}

int ancurl_easy_getinfo_long(ancurl_easy *easy, int info, long *value) {
    return p_easy_getinfo(easy, info, value);
}

int ancurl_easy_getinfo_off_t(ancurl_easy *easy, int info, int64_t *value) {
    return p_easy_getinfo(easy, info, value);
}

int ancurl_easy_getinfo_ptr(ancurl_easy *easy, int info, const char **value) {
    return p_easy_getinfo(easy, info, value);
}

int ancurl_easy_setopt_prereq(ancurl_easy *easy, ancurl_prereq_callback callback) {
    return p_easy_setopt(easy, ANCURLOPT_PREREQFUNCTION, callback);
}

int ancurl_easy_setopt_debug(ancurl_easy *easy, ancurl_debug_callback callback) {
    return p_easy_setopt(easy, ANCURLOPT_DEBUGFUNCTION, callback);
}

/* struct curl_slist and struct curl_certinfo, laid out as in curl/curl.h. */
struct ancurl_slist_node {
    char *data;
    struct ancurl_slist_node *next;
};
struct ancurl_certinfo {
    int num_of_certs;
    struct ancurl_slist_node **certinfo;
};

static const struct ancurl_certinfo *certinfo_of(ancurl_easy *easy) {
    const struct ancurl_certinfo *info = NULL;
    if (p_easy_getinfo(easy, ANCURLINFO_CERTINFO, &info) != 0 || info == NULL) return NULL;
    if (info->num_of_certs <= 0 || info->certinfo == NULL) return NULL;
    return info;
}

int ancurl_easy_certinfo_count(ancurl_easy *easy) {
    const struct ancurl_certinfo *info = certinfo_of(easy);
    return info != NULL ? info->num_of_certs : 0;
}

const char *ancurl_easy_certinfo_pem(ancurl_easy *easy, int index) {
    const struct ancurl_certinfo *info = certinfo_of(easy);
    if (info == NULL || index < 0 || index >= info->num_of_certs) return NULL;
    for (const struct ancurl_slist_node *node = info->certinfo[index]; node != NULL; node = node->next) {
        if (node->data != NULL && strncmp(node->data, "Cert:", 5) == 0) return node->data + 5;
    }
    return NULL;
}

ancurl_multi *ancurl_multi_init(void) { return p_multi_init(); }
int ancurl_multi_cleanup(ancurl_multi *multi) { return p_multi_cleanup(multi); }
int ancurl_multi_add(ancurl_multi *multi, ancurl_easy *easy) { return p_multi_add(multi, easy); }
int ancurl_multi_remove(ancurl_multi *multi, ancurl_easy *easy) { return p_multi_remove(multi, easy); }
int ancurl_multi_perform(ancurl_multi *multi, int *running) { return p_multi_perform(multi, running); }

int ancurl_multi_poll(ancurl_multi *multi, int timeout_ms, int *numfds) {
    return p_multi_poll(multi, NULL, 0, timeout_ms, numfds);
}

int ancurl_multi_wakeup(ancurl_multi *multi) { return p_multi_wakeup(multi); }

int ancurl_multi_setopt_long(ancurl_multi *multi, int option, long value) {
    return p_multi_setopt(multi, option, value);
}

int ancurl_multi_info_read(ancurl_multi *multi, ancurl_easy **easy, int *result) {
    int left = 0;
    struct ancurl_msg *message;
    while ((message = p_multi_info_read(multi, &left)) != NULL) {
        if (message->msg == ANCURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

ancurl_slist *ancurl_slist_append(ancurl_slist *list, const char *string) {
    return p_slist_append(list, string);
}

void ancurl_slist_free(ancurl_slist *list) { p_slist_free_all(list); }
