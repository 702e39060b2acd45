// The official NATS C client (Debian's libnats-dev 3.4) with JetStream.
// Only ParleyJobs imports it; nothing above that layer sees a C type.
#pragma once
#include <nats/nats.h>
