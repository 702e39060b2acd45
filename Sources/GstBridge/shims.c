// Thin functions for what Swift cannot reach: function-like macros, inline
// casts and variadic APIs.
#include "GstBridge.h"

GType parley_type_boolean(void) { return G_TYPE_BOOLEAN; }
GType parley_type_int(void) { return G_TYPE_INT; }
GType parley_type_uint(void) { return G_TYPE_UINT; }
GType parley_type_int64(void) { return G_TYPE_INT64; }
GType parley_type_uint64(void) { return G_TYPE_UINT64; }
GType parley_type_double(void) { return G_TYPE_DOUBLE; }
GType parley_type_string(void) { return G_TYPE_STRING; }
GType parley_type_fraction(void) { return GST_TYPE_FRACTION; }
GType parley_type_caps(void) { return GST_TYPE_CAPS; }
GType parley_value_type(const GValue *value) { return G_VALUE_TYPE(value); }
gboolean parley_value_holds_enum(const GValue *value) { return G_VALUE_HOLDS_ENUM(value); }
gboolean parley_type_is_enum(GType type) { return G_TYPE_IS_ENUM(type); }

GstBuffer *parley_buffer_make_writable(GstBuffer *buffer) { return gst_buffer_make_writable(buffer); }
GstEvent *parley_event_ref(GstEvent *event) { return gst_event_ref(event); }
void parley_event_unref(GstEvent *event) { gst_event_unref(event); }
GstMessage *parley_message_ref(GstMessage *message) { return gst_message_ref(message); }
void parley_message_unref(GstMessage *message) { gst_message_unref(message); }
GstQuery *parley_query_ref(GstQuery *query) { return gst_query_ref(query); }
void parley_caps_unref(GstCaps *caps) { gst_caps_unref(caps); }
GstCaps *parley_caps_ref(GstCaps *caps) { return gst_caps_ref(caps); }
void parley_object_unref(gpointer object) { gst_object_unref(object); }
gpointer parley_object_ref(gpointer object) { return gst_object_ref(object); }
const gchar *parley_object_name(gpointer object) { return GST_OBJECT_NAME(object); }
GstClockTime parley_clock_time_none(void) { return GST_CLOCK_TIME_NONE; }

gboolean parley_debug_enabled(GstDebugCategory *category, GstDebugLevel level) {
#ifndef GST_DISABLE_GST_DEBUG
  return level <= gst_debug_category_get_threshold(category) && level <= _gst_debug_min;
#else
  return FALSE;
#endif
}

void parley_debug_log(GstDebugCategory *category, GstDebugLevel level, const gchar *file,
                      const gchar *function, gint line, GObject *object, const gchar *text) {
  gst_debug_log_literal(category, level, file, function, line, object, text);
}

GParamFlags parley_param_flags(gboolean readable, gboolean writable, gboolean mutable_playing,
                               gboolean mutable_ready, gboolean controllable) {
  GParamFlags flags = G_PARAM_STATIC_STRINGS;
  if (readable) flags |= G_PARAM_READABLE;
  if (writable) flags |= G_PARAM_WRITABLE;
  if (mutable_playing) flags |= GST_PARAM_MUTABLE_PLAYING;
  else if (mutable_ready) flags |= GST_PARAM_MUTABLE_READY;
  if (controllable) flags |= GST_PARAM_CONTROLLABLE;
  return flags;
}

guint parley_param_flag_mutable_playing(void) { return GST_PARAM_MUTABLE_PLAYING; }

void parley_element_set_sink_flag(GstElement *element, gboolean sink) {
  if (sink) GST_OBJECT_FLAG_SET(element, GST_ELEMENT_FLAG_SINK);
  else GST_OBJECT_FLAG_UNSET(element, GST_ELEMENT_FLAG_SINK);
}

gulong parley_signal_connect(gpointer instance, const gchar *signal, GCallback handler,
                             gpointer data, GClosureNotify destroy) {
  return g_signal_connect_data(instance, signal, handler, data, destroy, 0);
}
