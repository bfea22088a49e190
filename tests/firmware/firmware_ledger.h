// The privacy ledger in the firmware image (firmware_ledger.cpp).
#ifndef LDP_TESTS_FIRMWARE_LEDGER_H
#define LDP_TESTS_FIRMWARE_LEDGER_H

#include <cstdint>

#include "ldp/random/drbg.h"

// Opens a ledger on two RAM "pages", configures a daily use case and sends a real and a dummy GRR
// report through ledger_report; 0 on success.
int firmware_ledger(ldp::random::drbg& rng, uint64_t now);

#endif
