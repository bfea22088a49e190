/* A server-side C program (docs/c_api.md): aggregates the reports firmware_example prints (one hex
 * line each, from the files named on the command line or from standard input), saves and reloads
 * the aggregator state, and prints the estimates with 95% confidence intervals.
 *   firmware_example 1000 | server_example */
#include <stdio.h>
#include <stdlib.h>

#include "example_params.h"
#include "ldp_server.h"

#define MAX_REPORT 256

static int hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Feeds every line of `in` to the aggregator. Lines that are not hex are counted in *unreadable;
 * bytes that are not a valid report are rejected (and counted) by the aggregator itself. */
static void add_lines(FILE* in, ldp_aggregator* aggregator, unsigned long* unreadable) {
  uint8_t report[MAX_REPORT];
  size_t size = 0;
  int high = -1, c, broken = 0;
  for (;;) {
    c = getc(in);
    if (c == '\n' || c == EOF) {
      if (broken || high >= 0) {
        ++*unreadable;
      } else if (size > 0) {
        (void)ldp_aggregator_add_report(aggregator, report, size); /* counted by status */
      }
      if (c == EOF) return;
      size = 0;
      high = -1;
      broken = 0;
    } else if (c != '\r' && !broken) {
      const int digit = hex_digit(c);
      if (digit < 0 || (high >= 0 && size == MAX_REPORT)) {
        broken = 1;
      } else if (high < 0) {
        high = digit;
      } else {
        report[size++] = (uint8_t)(high * 16 + digit);
        high = -1;
      }
    }
  }
}

/* Saved state is what a server keeps between runs and merges across machines. */
static ldp_aggregator* save_and_reload(const ldp_aggregator* aggregator) {
  ldp_aggregator* reloaded = NULL;
  uint8_t* state;
  size_t size = 0;
  if (ldp_aggregator_serialize(aggregator, NULL, 0, &size) != LDP_BUFFER_TOO_SMALL) return NULL;
  state = malloc(size);
  if (state != NULL && ldp_aggregator_serialize(aggregator, state, size, &size) == LDP_OK) {
    (void)ldp_aggregator_deserialize(state, size, &reloaded); /* NULL on failure */
  }
  free(state);
  return reloaded;
}

static int print_estimates(const ldp_aggregator* aggregator) {
  ldp_estimate* estimates;
  size_t count = 0, i;
  if (ldp_aggregator_estimate_all(aggregator, 0.95, NULL, 0, &count) != LDP_BUFFER_TOO_SMALL) return 1;
  estimates = malloc(count * sizeof *estimates);
  if (estimates == NULL || ldp_aggregator_estimate_all(aggregator, 0.95, estimates, count, &count) != LDP_OK) {
    free(estimates);
    return 1;
  }
  printf("item   estimate   95%% confidence interval\n");
  for (i = 0; i < count; ++i) {
    printf("%4lu %10.1f   [%9.1f, %9.1f]\n", (unsigned long)estimates[i].item, estimates[i].value, estimates[i].ci_low,
           estimates[i].ci_high);
  }
  free(estimates);
  return 0;
}

int main(int argc, char** argv) {
  ldp_params params;
  ldp_aggregator* aggregator = NULL;
  ldp_aggregator* reloaded;
  unsigned long unreadable = 0;
  uint64_t rejected = 0;
  ldp_status s;
  int i, rc;

  s = ldp_params_decode(&params, example_params_block, sizeof example_params_block);
  if (s == LDP_OK) s = ldp_aggregator_create(&params, &aggregator);
  if (s != LDP_OK) {
    fprintf(stderr, "server_example: %s\n", ldp_status_name(s));
    return 1;
  }
  if (argc < 2) add_lines(stdin, aggregator, &unreadable);
  for (i = 1; i < argc; ++i) {
    FILE* in = fopen(argv[i], "r");
    if (in == NULL) {
      fprintf(stderr, "server_example: cannot open %s\n", argv[i]);
      ldp_aggregator_free(aggregator);
      return 2;
    }
    add_lines(in, aggregator, &unreadable);
    fclose(in);
  }

  reloaded = save_and_reload(aggregator);
  ldp_aggregator_free(aggregator);
  if (reloaded == NULL) {
    fprintf(stderr, "server_example: saving the state failed\n");
    return 1;
  }

  printf("mechanism %s, epsilon %.4f, %llu reports accepted\n", ldp_mechanism_name(ldp_params_mechanism(&params)),
         ldp_params_epsilon(&params), (unsigned long long)ldp_aggregator_reports(reloaded));
  for (s = 1; s < LDP_STATUS_COUNT; ++s) {
    const uint64_t n = ldp_aggregator_rejected(reloaded, s);
    if (n > 0) printf("rejected (%s): %llu\n", ldp_status_name(s), (unsigned long long)n);
    rejected += n;
  }
  printf("rejected: %llu, unreadable lines: %lu\n", (unsigned long long)rejected, unreadable);
  rc = print_estimates(reloaded);
  ldp_aggregator_free(reloaded);
  return rc;
}
