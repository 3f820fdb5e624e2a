"""Run by test_shm_transport.py as one of two plain processes (no MPI) sharing
a shared-memory process group. Usage: _shm_worker.py NAME RANK MODE TIMEOUT"""
import sys
import time

import numpy as np

import popart  # noqa: F401  (loads popart_core with its libraries)
import popart_core


def gather(rank, n, seed):
    mine = (np.arange(n, dtype=np.float32) + 1000 * rank + seed).astype(np.float32)
    out = np.empty(2 * n, np.float32)
    popart_core._processGroupAllGather(mine, out)
    want = np.concatenate([np.arange(n, dtype=np.float32) + 1000 * r + seed for r in (0, 1)])
    np.testing.assert_array_equal(out, want)


def main():
    name, rank, mode, timeout = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
    popart_core._setShmProcessGroup(rank, 2, name, timeout)
    print("transport", popart_core._processGroupTransport(), flush=True)
    if mode == "gather":  # sizes that grow the slots, shrink, and grow again
        for seed, n in enumerate([3, 1 << 18, 5 << 18, 7, 1 << 21, 0, 11]):
            gather(rank, n, seed)
        print("ok", flush=True)
        return
    gather(rank, 16, 0)
    if rank == 1:
        if mode == "exit":
            sys.exit(0)
        if mode == "late":
            time.sleep(4)
            return
        if mode == "mismatch":
            gather(rank, 32, 1)
            return
    t0 = time.monotonic()
    try:
        gather(rank, 16, 1)
    except popart.popart_exception as e:
        print(f"error after {time.monotonic() - t0:.2f} s: {e}", flush=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
