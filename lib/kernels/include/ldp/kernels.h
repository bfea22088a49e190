// Umbrella header of ldp::kernels (docs/architecture.md, lib/kernels).
#ifndef LDP_KERNELS_H
#define LDP_KERNELS_H

#include "ldp/kernels/kernel_table.h"

#endif
