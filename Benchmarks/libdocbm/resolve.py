"""The Python side of Benchmarks/libdocbm/run.sh: the median time of one
docbm.Document.resolve of a bookmark's text form, in nanoseconds, over ROUNDS batches of
ITERATIONS calls.

Usage: resolve.py DOCUMENT BOOKMARK ITERATIONS ROUNDS
"""

import statistics
import sys
import time

import docbm

path, text, iterations, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with docbm.Document(path) as document:
    times = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(iterations):
            document.resolve(text)
        times.append((time.perf_counter_ns() - start) / iterations)
print(int(statistics.median_low(times)))
