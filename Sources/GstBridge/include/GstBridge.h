// GstBridge: the only hand-written C in Parley.
//
// Swift cannot subclass GObject types, so the bridge provides one generic
// GObject class per *kind* of element. Each Swift element type is described by
// a ParleyElementClassInfo (metadata, pad templates, GParamSpecs, callbacks);
// parley_element_register() creates a new GType from that description at run
// time. No element has C code of its own.
#pragma once
#include "../../CGStreamer/shim.h"  // the CGStreamer module, not a second copy

G_BEGIN_DECLS

typedef enum {
  /// GstElement with an always sink pad and/or an always src pad and an
  /// optional request src pad template. Chain, events and queries go to Swift;
  /// Swift decides what to push (filters, transforms, async elements, fan-out).
  PARLEY_KIND_ELEMENT = 0,
  /// GstBaseSink: preroll, clock sync and EOS handling come from the base class.
  PARLEY_KIND_SINK = 1,
  /// GstPushSrc: segments, num-buffers and live handling come from the base class.
  PARLEY_KIND_SOURCE = 2,
} ParleyElementKind;

/// Callbacks into Swift. `instance` is the pointer returned by `create`.
typedef struct {
  gpointer (*create)(gpointer type_context, GstElement *element);
  void (*destroy)(gpointer instance);
  void (*get_property)(gpointer instance, guint property_id, GValue *value);
  void (*set_property)(gpointer instance, guint property_id, const GValue *value);
  /// Called before the parent's change_state (after == FALSE) and after it
  /// (after == TRUE). Returning GST_STATE_CHANGE_FAILURE aborts the change.
  GstStateChangeReturn (*change_state)(gpointer instance, GstStateChange transition,
                                       gboolean after);
  // PARLEY_KIND_ELEMENT
  GstFlowReturn (*chain)(gpointer instance, GstPad *pad, GstBuffer *buffer);
  gboolean (*pad_event)(gpointer instance, GstPad *pad, GstEvent *event);
  gboolean (*pad_query)(gpointer instance, GstPad *pad, GstQuery *query);
  void (*pad_added)(gpointer instance, GstPad *pad);
  void (*pad_removed)(gpointer instance, GstPad *pad);
  // PARLEY_KIND_SINK and PARLEY_KIND_SOURCE
  gboolean (*start)(gpointer instance);
  gboolean (*stop)(gpointer instance);
  GstFlowReturn (*render)(gpointer instance, GstBuffer *buffer);
  /// Sink: serialized and non-serialized events reaching the base sink. Return
  /// TRUE to let the base class handle it too (it must, for EOS and segments).
  gboolean (*sink_event)(gpointer instance, GstEvent *event);
  GstFlowReturn (*create_buffer)(gpointer instance, GstBuffer **out);
  GstCaps *(*fixate)(gpointer instance, GstCaps *caps);
  gboolean (*unlock)(gpointer instance);
  gboolean (*unlock_stop)(gpointer instance);
} ParleyCallbacks;

typedef struct {
  ParleyElementKind kind;
  const gchar *type_name;     ///< GType name, e.g. "GstParleyVadSegmenter"
  const gchar *factory_name;  ///< e.g. "vadsegmenter"
  guint rank;
  const gchar *long_name, *klass, *description, *author;
  const gchar *doc_uri;       ///< optional, may be NULL
  const gchar *example;       ///< a gst-launch-1.0 line that runs; gst-inspect shows it
  const gchar *sink_caps;     ///< NULL: no sink pad
  const gchar *src_caps;      ///< NULL: no always src pad
  const gchar *request_src_caps; ///< NULL: no "src_%u" request template
  /// Request sink templates ("text_%u", "audio_%u", ...) and their caps, for
  /// elements that end several streams (PARLEY_KIND_ELEMENT). With no src
  /// pad the element is flagged as a sink: the bin waits for its EOS message.
  guint n_request_sinks;
  const gchar *const *request_sink_names;
  const gchar *const *request_sink_caps;
  guint n_properties;
  GParamSpec **properties;    ///< property ids are index + 1
  gboolean source_is_live;    ///< PARLEY_KIND_SOURCE only
  gint source_format;         ///< GstFormat of the source, PARLEY_KIND_SOURCE only
  const ParleyCallbacks *callbacks;
  gpointer type_context;      ///< passed to callbacks->create
} ParleyElementClassInfo;

/// Registers a new element type and factory. `plugin` may be NULL only for
/// types used without a factory. The info must live forever.
gboolean parley_element_register(GstPlugin *plugin, const ParleyElementClassInfo *info);

/// The Swift instance behind a Parley element, or NULL if `element` is not one.
gpointer parley_element_get_instance(GstElement *element);

/// The element's always pads (NULL where the kind has none).
GstPad *parley_element_sink_pad(GstElement *element);
GstPad *parley_element_src_pad(GstElement *element);

// ---- Shims for macros and variadic functions Swift cannot call ----

GType parley_type_boolean(void);
GType parley_type_int(void);
GType parley_type_uint(void);
GType parley_type_int64(void);
GType parley_type_uint64(void);
GType parley_type_double(void);
GType parley_type_string(void);
GType parley_type_fraction(void);
GType parley_type_caps(void);
GType parley_value_type(const GValue *value);
gboolean parley_value_holds_enum(const GValue *value);
gboolean parley_type_is_enum(GType type);

GstBuffer *parley_buffer_make_writable(GstBuffer *buffer);
GstEvent *parley_event_ref(GstEvent *event);
void parley_event_unref(GstEvent *event);
GstMessage *parley_message_ref(GstMessage *message);
void parley_message_unref(GstMessage *message);
GstQuery *parley_query_ref(GstQuery *query);
void parley_caps_unref(GstCaps *caps);
GstCaps *parley_caps_ref(GstCaps *caps);
void parley_object_unref(gpointer object);
gpointer parley_object_ref(gpointer object);
const gchar *parley_object_name(gpointer object);
GstClockTime parley_clock_time_none(void);
gboolean parley_debug_enabled(GstDebugCategory *category, GstDebugLevel level);
void parley_debug_log(GstDebugCategory *category, GstDebugLevel level, const gchar *file,
                      const gchar *function, gint line, GObject *object, const gchar *text);
GParamFlags parley_param_flags(gboolean readable, gboolean writable, gboolean mutable_playing,
                               gboolean mutable_ready, gboolean controllable);
guint parley_param_flag_mutable_playing(void);
void parley_element_set_sink_flag(GstElement *element, gboolean sink);
gulong parley_signal_connect(gpointer instance, const gchar *signal, GCallback handler,
                             gpointer data, GClosureNotify destroy);

G_END_DECLS
