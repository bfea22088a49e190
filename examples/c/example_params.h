/* The parameter block of the C examples (docs/wire_format.md section 3): OUE over 16 items at
 * epsilon 2, as the server distributes it to devices. It is the encoding of
 *   ldp_params_frequency(&p, LDP_MECH_OUE, 16, 2.0, 0, 0, NULL)
 * (checked by tests/unit/capi/test_capi.cpp): version 1, mechanism 3, 4 fields: domain 16, 32-bit
 * thresholds, T_p = 2^31 (p = 1/2), T_q = 0x1e84152c (q = 1 / (e^2 + 1) rounded toward privacy). */
#ifndef LDP_EXAMPLE_PARAMS_H
#define LDP_EXAMPLE_PARAMS_H

#include <stdint.h>

static const uint8_t example_params_block[] = {0x01, 0x03, 0x04,             /* version, OUE, 4 fields */
                                               0x01, 0x10, 0x00, 0x00, 0x00, /* domain: 16 */
                                               0x02, 0x20,                   /* threshold bits: 32 */
                                               0x03, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,  /* T_p */
                                               0x04, 0x2c, 0x15, 0x84, 0x1e, 0x00, 0x00, 0x00, 0x00}; /* T_q */

#endif
