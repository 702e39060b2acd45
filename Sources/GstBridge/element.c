// Generic, data-driven element classes. One class_init per kind reads its
// ParleyElementClassInfo (passed as class_data) and forwards every virtual
// method to the Swift callbacks in it.
#include "GstBridge.h"
#include <string.h>

GST_DEBUG_CATEGORY_STATIC(parley_bridge_debug);
#define GST_CAT_DEFAULT parley_bridge_debug

// Every kind's instance starts with its parent instance followed by these
// fields, so the helpers below can find them whatever the parent is.
typedef struct {
  gpointer swift;
  GstPad *sinkpad;
  GstPad *srcpad;
  guint next_request_pad;
} ParleyInstanceData;

typedef struct { GstElement parent; ParleyInstanceData data; } ParleyElement;
typedef struct { GstBaseSink parent; ParleyInstanceData data; } ParleySink;
typedef struct { GstPushSrc parent; ParleyInstanceData data; } ParleySource;

typedef struct { GstElementClass parent; const ParleyElementClassInfo *info; } ParleyElementClass;
typedef struct { GstBaseSinkClass parent; const ParleyElementClassInfo *info; } ParleySinkClass;
typedef struct { GstPushSrcClass parent; const ParleyElementClassInfo *info; } ParleySourceClass;

static GQuark info_quark(void) {
  // Quarks are interned: asking twice returns the same one, so no once-guard.
  return g_quark_from_static_string("parley-class-info");
}

static const ParleyElementClassInfo *info_of_type(GType type) {
  return g_type_get_qdata(type, info_quark());
}

static const ParleyElementClassInfo *info_of(gpointer instance) {
  GType type = G_TYPE_FROM_INSTANCE(instance);
  const ParleyElementClassInfo *info = NULL;
  // Walk up: a GType registered from Swift may in turn be subclassed.
  while (type && !(info = info_of_type(type))) type = g_type_parent(type);
  return info;
}

static ParleyInstanceData *data_of(gpointer instance) {
  const ParleyElementClassInfo *info = info_of(instance);
  if (!info) return NULL;
  switch (info->kind) {
    case PARLEY_KIND_ELEMENT: return &((ParleyElement *)instance)->data;
    case PARLEY_KIND_SINK: return &((ParleySink *)instance)->data;
    case PARLEY_KIND_SOURCE: return &((ParleySource *)instance)->data;
  }
  return NULL;
}

#define SWIFT(obj) (data_of(obj)->swift)
#define CALLBACKS(obj) (info_of(obj)->callbacks)

gpointer parley_element_get_instance(GstElement *element) {
  ParleyInstanceData *data = element ? data_of(element) : NULL;
  return data ? data->swift : NULL;
}

GstPad *parley_element_sink_pad(GstElement *element) {
  ParleyInstanceData *data = data_of(element);
  if (!data) return NULL;
  if (data->sinkpad) return data->sinkpad;
  if (GST_IS_BASE_SINK(element)) return GST_BASE_SINK_PAD(element);
  return NULL;
}

GstPad *parley_element_src_pad(GstElement *element) {
  ParleyInstanceData *data = data_of(element);
  if (!data) return NULL;
  if (data->srcpad) return data->srcpad;
  if (GST_IS_BASE_SRC(element)) return GST_BASE_SRC_PAD(element);
  return NULL;
}

// ---- GObject plumbing shared by all kinds ----

static void parley_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  (void)pspec;
  CALLBACKS(object)->set_property(SWIFT(object), id, value);
}

static void parley_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  (void)pspec;
  CALLBACKS(object)->get_property(SWIFT(object), id, value);
}

static GObjectClass *parent_object_class(GObject *object) {
  const ParleyElementClassInfo *info = info_of(object);
  GType type = G_TYPE_FROM_INSTANCE(object);
  while (info_of_type(type) != info) type = g_type_parent(type);
  return g_type_class_peek(g_type_parent(type));
}

static void parley_finalize(GObject *object) {
  ParleyInstanceData *data = data_of(object);
  if (data->swift) CALLBACKS(object)->destroy(data->swift);
  data->swift = NULL;
  parent_object_class(object)->finalize(object);
}

static GstStateChangeReturn parley_change_state(GstElement *element, GstStateChange transition) {
  const ParleyCallbacks *cb = CALLBACKS(element);
  gpointer swift = SWIFT(element);
  GstStateChangeReturn ret = cb->change_state(swift, transition, FALSE);
  if (ret == GST_STATE_CHANGE_FAILURE) return ret;
  GstElementClass *parent = GST_ELEMENT_CLASS(parent_object_class(G_OBJECT(element)));
  GstStateChangeReturn parent_ret = parent->change_state(element, transition);
  if (parent_ret == GST_STATE_CHANGE_FAILURE) return parent_ret;
  ret = cb->change_state(swift, transition, TRUE);
  if (ret == GST_STATE_CHANGE_FAILURE) return ret;
  // The parent's answer (ASYNC, NO_PREROLL) wins unless Swift asks for one.
  return ret == GST_STATE_CHANGE_SUCCESS ? parent_ret : ret;
}

static void common_class_init(gpointer klass, const ParleyElementClassInfo *info) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  object_class->set_property = parley_set_property;
  object_class->get_property = parley_get_property;
  object_class->finalize = parley_finalize;
  element_class->change_state = parley_change_state;
  for (guint i = 0; i < info->n_properties; i++)
    g_object_class_install_property(object_class, i + 1, info->properties[i]);
  gst_element_class_set_static_metadata(element_class, info->long_name, info->klass,
                                        info->description, info->author);
  if (info->example)
    gst_element_class_add_static_metadata(element_class, "example", info->example);
  if (info->doc_uri)
    gst_element_class_add_static_metadata(element_class, GST_ELEMENT_METADATA_DOC_URI, info->doc_uri);
  if (info->sink_caps)
    gst_element_class_add_pad_template(element_class,
        gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, gst_caps_from_string(info->sink_caps)));
  if (info->src_caps)
    gst_element_class_add_pad_template(element_class,
        gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, gst_caps_from_string(info->src_caps)));
  if (info->request_src_caps)
    gst_element_class_add_pad_template(element_class,
        gst_pad_template_new("src_%u", GST_PAD_SRC, GST_PAD_REQUEST,
                             gst_caps_from_string(info->request_src_caps)));
  for (guint i = 0; i < info->n_request_sinks; i++)
    gst_element_class_add_pad_template(element_class,
        gst_pad_template_new(info->request_sink_names[i], GST_PAD_SINK, GST_PAD_REQUEST,
                             gst_caps_from_string(info->request_sink_caps[i])));
}

static void common_instance_init(GTypeInstance *instance, gpointer klass) {
  const ParleyElementClassInfo *info = info_of(instance);
  (void)klass;
  data_of(instance)->swift = info->callbacks->create(info->type_context, GST_ELEMENT(instance));
}

// ---- PARLEY_KIND_ELEMENT ----

static GstFlowReturn element_chain(GstPad *pad, GstObject *parent, GstBuffer *buffer) {
  return CALLBACKS(parent)->chain(SWIFT(parent), pad, buffer);
}

static gboolean element_event(GstPad *pad, GstObject *parent, GstEvent *event) {
  return CALLBACKS(parent)->pad_event(SWIFT(parent), pad, event);
}

static gboolean element_query(GstPad *pad, GstObject *parent, GstQuery *query) {
  return CALLBACKS(parent)->pad_query(SWIFT(parent), pad, query);
}

static GstPad *make_pad(GstElement *element, GstPadTemplate *templ, const gchar *name) {
  const ParleyElementClassInfo *info = info_of(element);
  GstPad *pad = gst_pad_new_from_template(templ, name);
  // Same caps in and out: caps events and queries pass through untouched
  // (gst_pad_event_default forwards CAPS only on proxy-caps pads). Elements
  // that change format push their own caps instead.
  const gchar *out_caps = info->src_caps ? info->src_caps : info->request_src_caps;
  if (info->sink_caps && out_caps && g_str_equal(info->sink_caps, out_caps))
    GST_PAD_SET_PROXY_CAPS(pad);
  if (GST_PAD_IS_SINK(pad)) gst_pad_set_chain_function(pad, element_chain);
  gst_pad_set_event_function(pad, element_event);
  gst_pad_set_query_function(pad, element_query);
  return pad;
}

static GstPad *element_request_new_pad(GstElement *element, GstPadTemplate *templ,
                                       const gchar *name, const GstCaps *caps) {
  (void)caps;
  ParleyInstanceData *data = data_of(element);
  gchar *generated = NULL;
  if (!name) {
    // "text_%u" → "text_3": one counter for all templates keeps names unique.
    const gchar *pattern = GST_PAD_TEMPLATE_NAME_TEMPLATE(templ);
    const gchar *percent = strstr(pattern, "%u");
    if (!percent) return NULL;
    generated = g_strdup_printf("%.*s%u", (int)(percent - pattern), pattern, data->next_request_pad++);
    name = generated;
  }
  GstPad *pad = make_pad(element, templ, name);
  g_free(generated);
  gst_pad_set_active(pad, TRUE);
  if (!gst_element_add_pad(element, pad)) return NULL;
  CALLBACKS(element)->pad_added(data->swift, pad);
  return pad;
}

static void element_release_pad(GstElement *element, GstPad *pad) {
  CALLBACKS(element)->pad_removed(SWIFT(element), pad);
  gst_pad_set_active(pad, FALSE);
  gst_element_remove_pad(element, pad);
}

// A sink made of request pads (a recorder) is asked as a whole the way a
// GstBaseSink is: the pipeline's LATENCY query goes to its own sink pad's
// handler (GStreamer's default would ask upstream past it, answering for the
// element as if it played in time), and the LATENCY event the pipeline then
// sends every sink is taken (the default finds no src pad to send it to and
// reports it unconfigured). What the element answers is decided in Swift.
static gboolean sink_element_query(GstElement *element, GstQuery *query) {
  GST_OBJECT_LOCK(element);
  GstPad *pad = element->sinkpads ? gst_object_ref(element->sinkpads->data) : NULL;
  GST_OBJECT_UNLOCK(element);
  if (!pad) return GST_ELEMENT_CLASS(parent_object_class(G_OBJECT(element)))->query(element, query);
  gboolean answered = gst_pad_query(pad, query);
  gst_object_unref(pad);
  return answered;
}

static gboolean sink_element_send_event(GstElement *element, GstEvent *event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_LATENCY) {
    // Nothing to configure: these sinks write as data arrives, never on the clock.
    gst_event_unref(event);
    return TRUE;
  }
  return GST_ELEMENT_CLASS(parent_object_class(G_OBJECT(element)))->send_event(element, event);
}

static void element_class_init(gpointer klass, gpointer class_data) {
  const ParleyElementClassInfo *info = class_data;
  ((ParleyElementClass *)klass)->info = info;
  common_class_init(klass, info);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  if (info->request_src_caps || info->n_request_sinks) {
    element_class->request_new_pad = element_request_new_pad;
    element_class->release_pad = element_release_pad;
  }
  if (info->n_request_sinks && !info->src_caps && !info->request_src_caps) {
    element_class->query = sink_element_query;
    element_class->send_event = sink_element_send_event;
  }
}

static void element_instance_init(GTypeInstance *instance, gpointer klass) {
  const ParleyElementClassInfo *info = info_of(instance);
  GstElement *element = GST_ELEMENT(instance);
  ParleyInstanceData *data = data_of(instance);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  if (info->sink_caps) {
    data->sinkpad = make_pad(element, gst_element_class_get_pad_template(element_class, "sink"), "sink");
    gst_element_add_pad(element, data->sinkpad);
  }
  if (info->src_caps) {
    data->srcpad = make_pad(element, gst_element_class_get_pad_template(element_class, "src"), "src");
    // Elements that push their own caps (format changers) decide caps in Swift.
    gst_element_add_pad(element, data->srcpad);
  }
  if (info->n_request_sinks && !info->src_caps && !info->request_src_caps)
    GST_OBJECT_FLAG_SET(element, GST_ELEMENT_FLAG_SINK);
  common_instance_init(instance, klass);
}

// ---- PARLEY_KIND_SINK ----

static gboolean sink_start(GstBaseSink *sink) { return CALLBACKS(sink)->start(SWIFT(sink)); }
static gboolean sink_stop(GstBaseSink *sink) { return CALLBACKS(sink)->stop(SWIFT(sink)); }
static GstFlowReturn sink_render(GstBaseSink *sink, GstBuffer *buffer) {
  return CALLBACKS(sink)->render(SWIFT(sink), buffer);
}
static gboolean sink_event(GstBaseSink *sink, GstEvent *event) {
  if (!CALLBACKS(sink)->sink_event(SWIFT(sink), event)) {
    gst_event_unref(event);
    return FALSE;
  }
  GstBaseSinkClass *parent = GST_BASE_SINK_CLASS(parent_object_class(G_OBJECT(sink)));
  return parent->event(sink, event);
}

static void sink_class_init(gpointer klass, gpointer class_data) {
  const ParleyElementClassInfo *info = class_data;
  ((ParleySinkClass *)klass)->info = info;
  common_class_init(klass, info);
  GstBaseSinkClass *base = GST_BASE_SINK_CLASS(klass);
  base->start = sink_start;
  base->stop = sink_stop;
  base->render = sink_render;
  base->event = sink_event;
}

static void sink_instance_init(GTypeInstance *instance, gpointer klass) {
  // Transcript sinks write as results arrive; waiting on the clock would only
  // add latency, so sync is off by default (still a property, as usual).
  gst_base_sink_set_sync(GST_BASE_SINK(instance), FALSE);
  common_instance_init(instance, klass);
}

// ---- PARLEY_KIND_SOURCE ----

static gboolean source_start(GstBaseSrc *src) { return CALLBACKS(src)->start(SWIFT(src)); }
static gboolean source_stop(GstBaseSrc *src) { return CALLBACKS(src)->stop(SWIFT(src)); }
static gboolean source_unlock(GstBaseSrc *src) { return CALLBACKS(src)->unlock(SWIFT(src)); }
static gboolean source_unlock_stop(GstBaseSrc *src) { return CALLBACKS(src)->unlock_stop(SWIFT(src)); }
static GstFlowReturn source_create(GstPushSrc *src, GstBuffer **out) {
  return CALLBACKS(src)->create_buffer(SWIFT(src), out);
}
static GstCaps *source_fixate(GstBaseSrc *src, GstCaps *caps) {
  return CALLBACKS(src)->fixate(SWIFT(src), caps);
}

static void source_class_init(gpointer klass, gpointer class_data) {
  const ParleyElementClassInfo *info = class_data;
  ((ParleySourceClass *)klass)->info = info;
  common_class_init(klass, info);
  GstBaseSrcClass *base = GST_BASE_SRC_CLASS(klass);
  base->start = source_start;
  base->stop = source_stop;
  base->unlock = source_unlock;
  base->unlock_stop = source_unlock_stop;
  base->fixate = source_fixate;
  GST_PUSH_SRC_CLASS(klass)->create = source_create;
}

static void source_instance_init(GTypeInstance *instance, gpointer klass) {
  const ParleyElementClassInfo *info = info_of(instance);
  gst_base_src_set_live(GST_BASE_SRC(instance), info->source_is_live);
  gst_base_src_set_format(GST_BASE_SRC(instance), (GstFormat)info->source_format);
  common_instance_init(instance, klass);
}

// ---- Registration ----

gboolean parley_element_register(GstPlugin *plugin, const ParleyElementClassInfo *info) {
  static gsize debug_once = 0;
  if (g_once_init_enter(&debug_once)) {
    GST_DEBUG_CATEGORY_INIT(parley_bridge_debug, "parleybridge", 0, "Parley Swift element bridge");
    g_once_init_leave(&debug_once, 1);
  }
  GType type = g_type_from_name(info->type_name);
  if (!type) {
    GTypeInfo type_info = {0};
    GType parent = GST_TYPE_ELEMENT;
    switch (info->kind) {
      case PARLEY_KIND_ELEMENT:
        parent = GST_TYPE_ELEMENT;
        type_info.class_size = sizeof(ParleyElementClass);
        type_info.class_init = element_class_init;
        type_info.instance_size = sizeof(ParleyElement);
        type_info.instance_init = element_instance_init;
        break;
      case PARLEY_KIND_SINK:
        parent = GST_TYPE_BASE_SINK;
        type_info.class_size = sizeof(ParleySinkClass);
        type_info.class_init = sink_class_init;
        type_info.instance_size = sizeof(ParleySink);
        type_info.instance_init = sink_instance_init;
        break;
      case PARLEY_KIND_SOURCE:
        parent = GST_TYPE_PUSH_SRC;
        type_info.class_size = sizeof(ParleySourceClass);
        type_info.class_init = source_class_init;
        type_info.instance_size = sizeof(ParleySource);
        type_info.instance_init = source_instance_init;
        break;
    }
    type_info.class_data = info;
    type = g_type_register_static(parent, info->type_name, &type_info, 0);
    if (!type) return FALSE;
    g_type_set_qdata(type, info_quark(), (gpointer)info);
  } else if (!info_of_type(type)) {
    GST_ERROR("type name %s is taken by a type that is not a Parley element", info->type_name);
    return FALSE;
  }
  return gst_element_register(plugin, info->factory_name, info->rank, type);
}
