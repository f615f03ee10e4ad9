"""The Python side of Benchmarks/libdocbm/run.sh's store row: the median time of one
docbm.Store.add of a target and the forget of it, in nanoseconds, over ROUNDS batches of
ITERATIONS pairs.

Usage: store_add.py STORE TARGET ITERATIONS ROUNDS
"""

import statistics
import sys
import time

import docbm

path, target, iterations, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with docbm.Store(path) as store:
    times = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(iterations):
            store.add(target, key="bench")
            store.forget("bench")
        times.append((time.perf_counter_ns() - start) / iterations)
print(int(statistics.median_low(times)))
