// Umbrella header of ldp::server, the server half of ldpkit (ARCHITECTURE.md, lib/server).
#ifndef LDP_SERVER_H
#define LDP_SERVER_H

#include "ldp/server/frequency.h"

#endif
