"""The Python side of Benchmarks/libdocbm/run.sh: the median time of one call, in
nanoseconds, over ROUNDS batches of ITERATIONS calls.

Usage: call.py resolve DOCUMENT BOOKMARK ITERATIONS ROUNDS   (Document.resolve)
       call.py store-add STORE TARGET ITERATIONS ROUNDS      (Store.add, then Store.forget)
"""

import statistics
import sys
import time
from typing import Callable

import docbm


def measure(call: Callable[[], object], iterations: int, rounds: int) -> int:
    times = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(iterations):
            call()
        times.append((time.perf_counter_ns() - start) / iterations)
    return int(statistics.median_low(times))


kind, path, operand, iterations, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
if kind == "resolve":
    with docbm.Document(path) as document:
        print(measure(lambda: document.resolve(operand), iterations, rounds))
elif kind == "store-add":
    with docbm.Store(path) as store:
        print(measure(lambda: (store.add(operand, key="bench"), store.forget("bench")), iterations, rounds))
else:
    sys.exit(__doc__)
