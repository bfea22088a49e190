/* The C side of the installed-package check (tests/consumer/CMakeLists.txt): OUE reports of 2000
 * simulated devices from one seed, aggregated; prints the first report and the estimates in the
 * same format as main.cpp, so that the two outputs must be identical. */
#include <stdio.h>

#include "ldp.h"
#ifndef CONSUMER_DEVICE_ONLY
#include "ldp_server.h"
#endif

#define DEVICES 2000
#define ITEMS 8

int main(void) {
  static const uint8_t seed[LDP_SEED_SIZE] = {42};
  static ldp_rng rng;
  ldp_params params;
  uint64_t workspace[1];
  uint8_t report[64];
  size_t size = 0, i;
#ifndef CONSUMER_DEVICE_ONLY
  ldp_aggregator* aggregator = NULL;
  ldp_estimate estimates[ITEMS];
  size_t count = 0;
#endif

  if (ldp_check_abi(sizeof rng, sizeof params) != LDP_OK ||
      ldp_params_frequency(&params, LDP_MECH_OUE, ITEMS, 1.0, 0, 0, NULL) != LDP_OK ||
      ldp_rng_init(&rng, seed) != LDP_OK) {
    return 1;
  }
#ifndef CONSUMER_DEVICE_ONLY
  if (ldp_aggregator_create(&params, &aggregator) != LDP_OK) return 1;
#endif
  for (i = 0; i < DEVICES; ++i) {
    const ldp_status s =
        ldp_randomize_item(&params, &rng, (uint32_t)(i % 5), workspace, sizeof workspace, report, sizeof report, &size);
    if (s != LDP_OK) return 2;
    if (i == 0) {
      size_t b;
      printf("report 0:");
      for (b = 0; b < size; ++b) printf(" %02x", report[b]);
      printf("\n");
    }
#ifndef CONSUMER_DEVICE_ONLY
    if (ldp_aggregator_add_report(aggregator, report, size) != LDP_OK) return 3;
#endif
  }
  ldp_rng_wipe(&rng);
#ifndef CONSUMER_DEVICE_ONLY
  if (ldp_aggregator_estimate_all(aggregator, 0.95, estimates, ITEMS, &count) != LDP_OK) return 4;
  printf("reports: %llu\n", (unsigned long long)ldp_aggregator_reports(aggregator));
  for (i = 0; i < count; ++i) {
    printf("item %lu: %.6f [%.6f, %.6f]\n", (unsigned long)estimates[i].item, estimates[i].value, estimates[i].ci_low,
           estimates[i].ci_high);
  }
  ldp_aggregator_free(aggregator);
#endif
  return 0;
}
