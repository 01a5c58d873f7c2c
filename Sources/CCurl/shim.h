// libcurl for RecorderKit's HTTP client on Linux. `curl_easy_setopt` and `curl_easy_getinfo`
// are variadic, which Swift cannot call: these typed wrappers pass one argument of each kind.
#include <curl/curl.h>

typedef size_t (*rk_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*rk_curl_progress_callback)(void *context, curl_off_t download_total,
                                         curl_off_t downloaded, curl_off_t upload_total,
                                         curl_off_t uploaded);

static inline CURLcode rk_curl_set_long(CURL *handle, CURLoption option, long value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rk_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rk_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
  return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rk_curl_set_data_callback(CURL *handle, CURLoption option,
                                                 rk_curl_data_callback callback) {
  return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode rk_curl_set_progress_callback(CURL *handle,
                                                     rk_curl_progress_callback callback) {
  return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode rk_curl_get_long(CURL *handle, CURLINFO info, long *value) {
  return curl_easy_getinfo(handle, info, value);
}
