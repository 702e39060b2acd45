// libcurl, plus typed wrappers for its variadic setopt/getinfo, which Swift
// cannot call.
#pragma once
#include <curl/curl.h>

static inline CURLcode parley_curl_set_long(CURL *curl, CURLoption option, long value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode parley_curl_set_offset(CURL *curl, CURLoption option, curl_off_t value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode parley_curl_set_pointer(CURL *curl, CURLoption option, const void *value) {
  return curl_easy_setopt(curl, option, value);
}
static inline CURLcode parley_curl_set_string(CURL *curl, CURLoption option, const char *value) {
  return curl_easy_setopt(curl, option, value);
}
typedef size_t (*parley_curl_data_callback)(char *data, size_t size, size_t count, void *user);
static inline CURLcode parley_curl_set_callback(CURL *curl, CURLoption option, parley_curl_data_callback callback) {
  return curl_easy_setopt(curl, option, callback);
}
static inline long parley_curl_info_long(CURL *curl, CURLINFO info) {
  long value = 0;
  curl_easy_getinfo(curl, info, &value);
  return value;
}
static inline curl_off_t parley_curl_info_offset(CURL *curl, CURLINFO info) {
  curl_off_t value = 0;
  curl_easy_getinfo(curl, info, &value);
  return value;
}
static inline void *parley_curl_info_pointer(CURL *curl, CURLINFO info) {
  void *value = 0;
  curl_easy_getinfo(curl, info, &value);
  return value;
}
