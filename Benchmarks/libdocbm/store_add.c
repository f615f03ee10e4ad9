/*
 * The C side of Benchmarks/libdocbm/run.sh's store row: the median time of one
 * docbm_store_add of a target and the docbm_store_forget of it, in nanoseconds, over
 * ROUNDS batches of ITERATIONS pairs.
 *
 * Usage: store_add STORE TARGET ITERATIONS ROUNDS
 */
#define _POSIX_C_SOURCE 200809L
#include <docbm.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s STORE TARGET ITERATIONS ROUNDS\n", argv[0]);
    return 2;
  }
  long iterations = atol(argv[3]), rounds = atol(argv[4]);
  if (iterations <= 0 || rounds <= 0 || rounds > 1000) return 2;
  docbm_error *error = NULL;
  docbm_store *store = docbm_store_open(argv[1], 0, &error);
  if (!store) {
    fprintf(stderr, "%s\n", docbm_error_message(error));
    return 1;
  }
  double times[1000];
  for (long round = 0; round < rounds; round++) {
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long index = 0; index < iterations; index++) {
      docbm_store_record *record = docbm_store_add(store, argv[2], "bench", &error);
      if (!record || docbm_store_forget(store, "bench", &error) != 1) {
        fprintf(stderr, "%s\n", error ? docbm_error_message(error) : "the record was not there to forget");
        return 1;
      }
      docbm_store_record_free(record);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    times[round] = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / iterations;
  }
  qsort(times, (size_t)rounds, sizeof times[0], compare);
  printf("%ld\n", (long)times[rounds / 2]);
  docbm_store_close(store);
  return 0;
}
