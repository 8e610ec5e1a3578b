/* CRawCurl: see include/CRawCurl.h. */
#include "CRawCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* struct CURLMsg as laid out in multi.h; msg 1 is CURLMSG_DONE. */
struct rawcurl_message {
    int msg;
    rawcurl_easy *easy;
    union { void *whatever; int result; } data;
};

/* Every libcurl function the loop calls, resolved by name from one table. */
static struct {
    int (*global_init)(long);
    const char *(*version)(void);
    rawcurl_easy *(*easy_init)(void);
    void (*easy_cleanup)(rawcurl_easy *);
    int (*easy_setopt)(rawcurl_easy *, int, ...);
    int (*easy_getinfo)(rawcurl_easy *, int, ...);
    rawcurl_multi *(*multi_init)(void);
    int (*multi_cleanup)(rawcurl_multi *);
    int (*multi_setopt)(rawcurl_multi *, int, ...);
    int (*multi_add_handle)(rawcurl_multi *, rawcurl_easy *);
    int (*multi_remove_handle)(rawcurl_multi *, rawcurl_easy *);
    int (*multi_perform)(rawcurl_multi *, int *);
    int (*multi_poll)(rawcurl_multi *, void *, unsigned, int, int *);
    struct rawcurl_message *(*multi_info_read)(rawcurl_multi *, int *);
} curl;

static const struct { const char *name; void **slot; } symbols[] = {
    {"curl_global_init", (void **)&curl.global_init},
    {"curl_version", (void **)&curl.version},
    {"curl_easy_init", (void **)&curl.easy_init},
    {"curl_easy_cleanup", (void **)&curl.easy_cleanup},
    {"curl_easy_setopt", (void **)&curl.easy_setopt},
    {"curl_easy_getinfo", (void **)&curl.easy_getinfo},
    {"curl_multi_init", (void **)&curl.multi_init},
    {"curl_multi_cleanup", (void **)&curl.multi_cleanup},
    {"curl_multi_setopt", (void **)&curl.multi_setopt},
    {"curl_multi_add_handle", (void **)&curl.multi_add_handle},
    {"curl_multi_remove_handle", (void **)&curl.multi_remove_handle},
    {"curl_multi_perform", (void **)&curl.multi_perform},
    {"curl_multi_poll", (void **)&curl.multi_poll},
    {"curl_multi_info_read", (void **)&curl.multi_info_read},
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    /* Never closed: the pointers live as long as the process. */
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "dlopen libcurl.so.4: %s", dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        *symbols[i].slot = dlsym(library, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(failure, sizeof failure, "libcurl.so.4 has no %s", symbols[i].name);
            return;
        }
    }
    int code = curl.global_init(3L); /* CURL_GLOBAL_ALL */
    if (code != 0) snprintf(failure, sizeof failure, "curl_global_init: CURLcode %d", code);
}

int rawcurl_load(char *err, size_t errlen) {
    pthread_once(&once, load);
    if (failure[0] == 0) return 0;
    if (err != NULL && errlen > 0) snprintf(err, errlen, "%s", failure);
    return -1;
}

const char *rawcurl_version(void) { return curl.version(); }
rawcurl_easy *rawcurl_easy_init(void) { return curl.easy_init(); }
void rawcurl_easy_cleanup(rawcurl_easy *easy) { curl.easy_cleanup(easy); }

int rawcurl_easy_setopt_long(rawcurl_easy *easy, int option, long value) {
    return curl.easy_setopt(easy, option, value);
}

int rawcurl_easy_setopt_pointer(rawcurl_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}

int rawcurl_easy_setopt_write(rawcurl_easy *easy, int option, rawcurl_write_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}

int rawcurl_easy_getinfo_long(rawcurl_easy *easy, int info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}

rawcurl_multi *rawcurl_multi_init(void) { return curl.multi_init(); }
int rawcurl_multi_cleanup(rawcurl_multi *multi) { return curl.multi_cleanup(multi); }

int rawcurl_multi_setopt_long(rawcurl_multi *multi, int option, long value) {
    return curl.multi_setopt(multi, option, value);
}

int rawcurl_multi_add(rawcurl_multi *multi, rawcurl_easy *easy) { return curl.multi_add_handle(multi, easy); }
int rawcurl_multi_remove(rawcurl_multi *multi, rawcurl_easy *easy) { return curl.multi_remove_handle(multi, easy); }
int rawcurl_multi_perform(rawcurl_multi *multi, int *running) { return curl.multi_perform(multi, running); }

int rawcurl_multi_poll(rawcurl_multi *multi, int timeout_ms, int *numfds) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, numfds);
}

int rawcurl_multi_done(rawcurl_multi *multi, rawcurl_easy **easy, int *result) {
    int queued = 0;
    struct rawcurl_message *message;
    while ((message = curl.multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == 1) {
            *easy = message->easy;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}
