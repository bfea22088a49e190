/* The privacy ledger from C99 (ledger_example.c), run by test_ledger.cpp. */
#ifndef LDP_TESTS_CAPI_LEDGER_EXAMPLE_H
#define LDP_TESTS_CAPI_LEDGER_EXAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "ldp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LEDGER_EXAMPLE_SLOT_SIZE 128u
#define LEDGER_EXAMPLE_USE_CASE 42u
#define LEDGER_EXAMPLE_BUDGET 1.0
#define LEDGER_EXAMPLE_DAY 86400u

typedef struct ledger_example_result {
  ldp_status first_error; /* LDP_OK, or the first unexpected status */
  unsigned released;      /* reports sent: their charge returned LDP_OK */
  unsigned dummies;       /* of which dummy reports (the reserved item d - 1) */
  unsigned refused;       /* reports withheld: LDP_BUDGET_EXHAUSTED */
  size_t real_size;       /* the size of every real report */
  size_t dummy_size;      /* the size of every dummy report */
  double remaining;       /* epsilon left in the day after the loop */
  double epsilon;         /* the block's implemented epsilon, charged per report */
} ledger_example_result;

/* A day of a GRR device over 16 items (and the dummy item 16) at epsilon 0.25 with a daily budget of
 * LEDGER_EXAMPLE_BUDGET: ten attempts, every third with nothing to report, on a simulated NOR
 * flash of two slots (`flash`, 2 * LEDGER_EXAMPLE_SLOT_SIZE bytes, erased or holding a ledger). */
ledger_example_result ledger_example_run(uint8_t* flash, uint64_t now);

#ifdef __cplusplus
}
#endif

#endif
