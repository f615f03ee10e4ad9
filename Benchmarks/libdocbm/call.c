/*
 * The C side of Benchmarks/libdocbm/run.sh: the median time of one call, in nanoseconds,
 * over ROUNDS batches of ITERATIONS calls.
 *
 *   call resolve DOCUMENT BOOKMARK ITERATIONS ROUNDS    docbm_resolve of the bookmark's
 *                                                        text, and docbm_resolution_free
 *   call store-add STORE TARGET ITERATIONS ROUNDS        docbm_store_add of TARGET, then
 *                                                        docbm_store_forget of it
 */
#define _POSIX_C_SOURCE 200809L
#include <docbm.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* What one call works on: a document, or a store. */
static docbm_document *document;
static docbm_store *store;

/* One call of the kind measured; 0, or -1 with the failure printed. */
static int resolve_once(const char *bookmark) {
  docbm_error *error = NULL;
  docbm_resolution *resolution = docbm_resolve(document, bookmark, &error);
  if (!resolution) {
    fprintf(stderr, "%s\n", docbm_error_message(error));
    return -1;
  }
  docbm_resolution_free(resolution);
  return 0;
}

static int add_and_forget_once(const char *target) {
  docbm_error *error = NULL;
  docbm_store_record *record = docbm_store_add(store, target, "bench", &error);
  if (!record || docbm_store_forget(store, "bench", &error) != 1) {
    fprintf(stderr, "%s\n", error ? docbm_error_message(error) : "the record was not there to forget");
    return -1;
  }
  docbm_store_record_free(record);
  return 0;
}

int main(int argc, char **argv) {
  int resolving = argc == 6 && strcmp(argv[1], "resolve") == 0;
  if (argc != 6 || (!resolving && strcmp(argv[1], "store-add") != 0)) {
    fprintf(stderr, "usage: %s resolve DOCUMENT BOOKMARK | store-add STORE TARGET, then ITERATIONS ROUNDS\n",
            argv[0]);
    return 2;
  }
  long iterations = atol(argv[4]), rounds = atol(argv[5]);
  if (iterations <= 0 || rounds <= 0 || rounds > 1000) return 2;
  docbm_error *error = NULL;
  if (resolving) {
    document = docbm_document_open(argv[2], &error);
  } else {
    store = docbm_store_open(argv[2], 0, &error);
  }
  if (!document && !store) {
    fprintf(stderr, "%s\n", docbm_error_message(error));
    return 1;
  }
  double times[1000];
  for (long round = 0; round < rounds; round++) {
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long index = 0; index < iterations; index++) {
      if ((resolving ? resolve_once(argv[3]) : add_and_forget_once(argv[3])) != 0) return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    times[round] = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / iterations;
  }
  qsort(times, (size_t)rounds, sizeof times[0], compare);
  printf("%ld\n", (long)times[rounds / 2]);
  docbm_document_close(document);
  docbm_store_close(store);
  return 0;
}
