"""cases: eager (lmdb env opened in __init__, WSP301), lazy (opened in the worker, safe twin)."""
import os, sys, tempfile
import lmdb, numpy as np
from generators import get_generator


def build(path):
    env = lmdb.open(path, map_size=1 << 24)
    keys = []
    with env.begin(write=True) as txn:
        for i in range(6):
            k = f"sha{i}"
            txn.put(k.encode("ascii"), np.full(4, i, dtype=np.float32).tobytes())
            keys.append(k)
    env.close()
    return keys


def main(case):
    path = tempfile.mkdtemp()
    keys = build(path)
    gen = get_generator(path, keys, lazy=(case == "lazy"))
    tot = 0.0
    for x in gen:
        tot += float(x.sum())
    print("total", tot)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "eager")
