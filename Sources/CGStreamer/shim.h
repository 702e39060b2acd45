// The one place <gst/gst.h> is included from; every other target imports this
// module so that one owner holds the GStreamer declarations.
#pragma once
#include <gst/gst.h>
#include <gst/base/gstbasesink.h>
#include <gst/base/gstpushsrc.h>
#include <gst/audio/audio.h>
