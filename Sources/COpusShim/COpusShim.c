#include "COpusShim.h"

int recorder_opus_encoder_set(OpusEncoder *encoder, int request, opus_int32 value) {
  return opus_encoder_ctl(encoder, request, value);
}

int recorder_opus_encoder_get(OpusEncoder *encoder, int request, opus_int32 *value) {
  return opus_encoder_ctl(encoder, request, value);
}
