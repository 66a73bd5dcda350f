"""Shape of DecisionRWKV D4RL/dRWKV6.py: `wkv6_cuda = torch.utils.cpp_extension.load(...)`
at module level of the training script, whose DataLoader(num_workers=config.num_workers=4)
re-imports it in every spawned worker (WSP103): the (JIT-compile +) load repeats per worker.
Cases: import_load (hazard), lazy_load (safe twin: load inside main()).
The load is simulated by a counter file plus a sleep; the script prints how often it ran."""
import os
import sys
import tempfile
import time

import numpy as np
from torch.utils.data import DataLoader, IterableDataset

COUNTER = os.path.join(tempfile.gettempdir(), "l_l2_05_counter.txt")


def load_extension():
    time.sleep(0.2)  # stands for compiling/loading the CUDA kernel
    with open(COUNTER, "a") as f:
        f.write("x")
    return object()


case = sys.argv[1] if len(sys.argv) > 1 else "import_load"
if case == "import_load":
    wkv_cuda = load_extension()


class SequenceDataset(IterableDataset):
    def __iter__(self):
        for i in range(4):
            yield np.float32(i)


def main():
    if os.path.exists(COUNTER):
        os.remove(COUNTER)
    if case == "import_load":
        with open(COUNTER, "a") as f:
            f.write("x")  # the parent's own import-time load (already happened)
    else:
        load_extension()
    it = iter(DataLoader(SequenceDataset(), batch_size=2, num_workers=2))
    for _ in range(2):
        next(it)
    del it
    time.sleep(0.5)
    print("extension loads:", len(open(COUNTER).read()))
    print("OK")


if __name__ == "__main__":
    main()
