"""Shape (maltrail old/sensor.py:1369-1386): an anonymous mmap capture buffer is passed as an
argument to multiprocessing.Process workers (target is a module-level function).
cases: hazard (mmap.mmap(-1, n) in args: "cannot pickle 'mmap.mmap' object" under spawn),
caught (same, with the repository's `except TypeError` fallback to one process),
safe (multiprocessing.Array shared buffer, picklable for process start)."""
import sys, mmap, multiprocessing


def worker(buffer, n, offset):
    if isinstance(buffer, mmap.mmap):
        buffer.seek(0); data = buffer.read(4)
    else:
        data = bytes(buffer[:4])
    print("worker", offset, data)


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
    if case == "safe":
        buf = multiprocessing.Array('c', b"abcd" * 4, lock=False)
    else:
        buf = mmap.mmap(-1, 16); buf.write(b"abcd" * 4); buf.seek(0)
    n = multiprocessing.Value('L', lock=False)
    procs = []
    try:
        for i in range(2):
            p = multiprocessing.Process(target=worker, args=(buf, n, i))
            p.daemon = True
            p.start(); procs.append(p)
    except TypeError as e:
        if case != "caught":
            raise
        print("fallback to single process:", e)
    for p in procs:
        p.join(20)
    print("started", len(procs))
