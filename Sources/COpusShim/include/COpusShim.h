// Non-variadic wrappers for libopus's variadic `opus_encoder_ctl`.
//
// Swift cannot call C variadic functions, and declaring `opus_encoder_ctl` with a fixed
// signature from Swift (`@_silgen_name`, or a `dlsym` pointer cast) is wrong on Apple arm64,
// where variadic arguments travel on the stack rather than in registers. The package targets
// iOS and macOS, so the only portable bridge is a real C call site: these two functions.
#ifndef RECORDER_COPUS_SHIM_H
#define RECORDER_COPUS_SHIM_H

#include <opus.h>

/// `opus_encoder_ctl(encoder, request, value)` for the integer-valued SET requests.
int recorder_opus_encoder_set(OpusEncoder *encoder, int request, opus_int32 value);

/// `opus_encoder_ctl(encoder, request, &value)` for the integer-valued GET requests.
int recorder_opus_encoder_get(OpusEncoder *encoder, int request, opus_int32 *value);

#endif
