// Umbrella header of ldp::wire, the format shared by device and server (docs/wire_format.md).
#ifndef LDP_WIRE_H
#define LDP_WIRE_H

#include "ldp/wire/batch.h"
#include "ldp/wire/byte_cursor.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/det_math.h"
#include "ldp/wire/distribution_block.h"
#include "ldp/wire/distribution_params.h"
#include "ldp/wire/epsilon.h"
#include "ldp/wire/field.h"
#include "ldp/wire/fixed_trig.h"
#include "ldp/wire/group_block.h"
#include "ldp/wire/hash.h"
#include "ldp/wire/kent_support_params.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/mechanism_table.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/params.h"
#include "ldp/wire/peek.h"
#include "ldp/wire/projunit_params.h"
#include "ldp/wire/range_cells.h"
#include "ldp/wire/report.h"
#include "ldp/wire/state.h"
#include "ldp/wire/string_block.h"
#include "ldp/wire/string_params.h"
#include "ldp/wire/unit_vector_params.h"
#include "ldp/wire/user_level_params.h"
#include "ldp/wire/vector_params.h"

#endif
