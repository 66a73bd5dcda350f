# Mimics CRNN_Tensorflow data_provider/tf_io_pipline_fast_tools.py:
# a project module that starts a multiprocessing.Manager at import time,
# and a writer that hands an open writer handle to each Process.
import os
import sys
from multiprocessing import Manager, Process

CASE = os.environ.get("G4_CASE", "")

if CASE == "manager_at_import":
    # hazard shape (tf_io_pipline_fast_tools.py:28)
    _SAMPLE_INFO_QUEUE = Manager().Queue()
else:
    _SAMPLE_INFO_QUEUE = None  # safe twin: created lazily by the parent

_SENTINEL = ("", [])


def _get_queue():
    global _SAMPLE_INFO_QUEUE
    if _SAMPLE_INFO_QUEUE is None:
        _SAMPLE_INFO_QUEUE = Manager().Queue()
    return _SAMPLE_INFO_QUEUE


def _write_records(writer):
    # worker: writer is an already-open handle (hazard) or a path (safe)
    if isinstance(writer, str):
        writer = open(writer, "w")
    writer.write("ok\n")
    writer.close()


def _write_records_q(q, path):
    # worker reads the queue it was handed (safe twin)
    with open(path, "w") as f:
        while True:
            item = q.get()
            if item == _SENTINEL:
                break
            f.write(str(item) + "\n")


class FeatureWriter:
    def __init__(self, out_dir, n):
        self.out_dir, self.n = out_dir, n

    def run(self, mode):
        procs = []
        for i in range(self.n):
            path = os.path.join(self.out_dir, "part_%d.txt" % i)
            if mode == "handle":
                w = open(path, "w")            # like tf.python_io.TFRecordWriter(path) (line 484)
                p = Process(target=_write_records, args=(w,))
            elif mode == "path":
                p = Process(target=_write_records, args=(path,))
            else:
                q = _get_queue()
                q.put(("img", [i]))
                q.put(_SENTINEL)
                p = Process(target=_write_records_q, args=(q, path))
            procs.append(p)
            p.start()
        for p in procs:
            p.join()
        codes = [p.exitcode for p in procs]
        print("exitcodes", codes)
        if any(codes):
            sys.exit(1)
