/* ANZlib: see ANZlib.h. */
#include "ANZlib.h"

#include <pthread.h>

static an_zlib_api api;
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    AN_DLSYM(handle, api.version, "zlibVersion");
    AN_DLSYM(handle, api.deflate_init2, "deflateInit2_");
    AN_DLSYM(handle, api.deflate, "deflate");
    AN_DLSYM(handle, api.deflate_end, "deflateEnd");
    AN_DLSYM(handle, api.deflate_reset, "deflateReset");
    AN_DLSYM(handle, api.inflate_init2, "inflateInit2_");
    AN_DLSYM(handle, api.inflate, "inflate");
    AN_DLSYM(handle, api.inflate_end, "inflateEnd");
    AN_DLSYM(handle, api.inflate_reset, "inflateReset");
    loaded = 1;
}

const an_zlib_api *an_zlib(void) {
    pthread_once(&once, load);
    return loaded ? &api : NULL;
}
