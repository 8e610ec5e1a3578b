#include "ANTrailers.h"

/* Option numbers as curl/curl.h defines them: CURLOPTTYPE_FUNCTIONPOINT + 283 and
   CURLOPTTYPE_CBPOINT (= OBJECTPOINT) + 284. */
enum { an_opt_trailerfunction = 20000 + 283, an_opt_trailerdata = 10000 + 284 };

int an_curl_set_trailer_function(ancurl_easy *easy, an_trailer_callback callback, void *userdata) {
    /* curl_easy_setopt takes the function pointer through its variadic argument, as a pointer. */
    int code = ancurl_easy_setopt_ptr(easy, an_opt_trailerfunction, (const void *)callback);
    if (code != 0) return code;
    return ancurl_easy_setopt_ptr(easy, an_opt_trailerdata, userdata);
}
