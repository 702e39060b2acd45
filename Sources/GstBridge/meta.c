// ParleySpeechMeta: a real GstMeta so that segment id, status, language and
// latency stamps travel with every buffer after the VAD, through GStreamer's
// own elements too (it has no tags, so audioconvert/audioresample keep it).
#include "GstBridge.h"
#include <string.h>

GType parley_speech_meta_api_get_type(void) {
  static GType type = 0;
  static const gchar *tags[] = {NULL};
  if (g_once_init_enter(&type)) {
    GType api = gst_meta_api_type_register("ParleySpeechMetaAPI", tags);
    g_once_init_leave(&type, api);
  }
  return type;
}

static gboolean speech_meta_init(GstMeta *meta, gpointer params, GstBuffer *buffer) {
  (void)params; (void)buffer;
  ParleySpeechMeta *speech = (ParleySpeechMeta *)meta;
  speech->segment_id = 0;
  speech->status = PARLEY_SPEECH_STATUS_FINAL;
  speech->revision = 0;
  speech->language[0] = '\0';
  speech->speech_end_audio = GST_CLOCK_TIME_NONE;
  memset(speech->stamps, 0, sizeof(speech->stamps));
  speech->provider[0] = '\0';
  speech->detail[0] = '\0';
  return TRUE;
}

static gboolean speech_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *buffer,
                                      GQuark type, gpointer data) {
  (void)buffer; (void)type; (void)data;
  // Copies, slices and format conversions all describe the same utterance.
  ParleySpeechMeta *from = (ParleySpeechMeta *)meta;
  ParleySpeechMeta *to = parley_buffer_get_speech_meta(dest);
  if (!to) to = parley_buffer_add_speech_meta(dest);
  if (!to) return FALSE;
  to->segment_id = from->segment_id;
  to->status = from->status;
  to->revision = from->revision;
  memcpy(to->language, from->language, sizeof(to->language));
  to->speech_end_audio = from->speech_end_audio;
  memcpy(to->stamps, from->stamps, sizeof(to->stamps));
  memcpy(to->provider, from->provider, sizeof(to->provider));
  memcpy(to->detail, from->detail, sizeof(to->detail));
  return TRUE;
}

const GstMetaInfo *parley_speech_meta_get_info(void) {
  static const GstMetaInfo *info = NULL;
  if (g_once_init_enter((GstMetaInfo **)&info)) {
    const GstMetaInfo *registered = gst_meta_register(
        parley_speech_meta_api_get_type(), "ParleySpeechMeta", sizeof(ParleySpeechMeta),
        speech_meta_init, NULL, speech_meta_transform);
    g_once_init_leave((GstMetaInfo **)&info, (GstMetaInfo *)registered);
  }
  return info;
}

ParleySpeechMeta *parley_buffer_add_speech_meta(GstBuffer *buffer) {
  return (ParleySpeechMeta *)gst_buffer_add_meta(buffer, parley_speech_meta_get_info(), NULL);
}

ParleySpeechMeta *parley_buffer_get_speech_meta(GstBuffer *buffer) {
  return (ParleySpeechMeta *)gst_buffer_get_meta(buffer, parley_speech_meta_api_get_type());
}
