"""d_d2_03: preprocessing scripts with multiprocessing.Pool.
cases:
  unguarded           Pool(...) created and mapped at module level (GaitSet pretreatment.py:149, mmaction2
                      skeleton/compress_nturgbd.py:41, hacs/generate_anotations.py:32)      -> WSP101 hazard
  guarded_partial     Pool under the guard; functools.partial of a module-level function carries the settings
                      (OpenGait pretreatment.py, panotti preprocess_data.py)                 -> safe
  initializer_global  Pool(initializer=init, initargs=(lock,)): `global lock` set in each worker by the
                      initializer (mmaction2 build_rawframes.py init)                        -> safe
  explicit_args       apply_async(f, args=(item, tools_obj, out_dir)): an instance of a module-level class passed
                      as an argument (mmaction2 build_audio_features.py)                     -> safe
  parent_lambda       lambda used by builtin map() in the parent to build the work list (build_rawframes.py)
                                                                                            -> safe
  start_method_guarded  mp.set_start_method(..., force=True) under the guard (panotti preprocess_data.py) -> safe
"""
import multiprocessing as mp
import os
import os.path as osp
import sys
from functools import partial

case = sys.argv[1]
print(f"[{os.getpid()}] import of {__name__}", flush=True)


def work(item, out_dir="out", scale=1):
    return f"{out_dir}/{item * scale}"


def init(lock_):
    global lock
    lock = lock_


def work_locked(item):
    with lock:
        return item * 2


class Tools:
    def __init__(self, fft=512):
        self.fft = fft

    def feat(self, x):
        return x * self.fft


def work_tools(item, tools, out_dir):
    return f"{out_dir}/{tools.feat(item)}"


if case == "unguarded":
    pool = mp.Pool(2)
    print("OK", pool.map(work, range(4)), flush=True)
    pool.close()
    pool.join()

if __name__ == "__main__":
    if case == "guarded_partial":
        with mp.Pool(2) as pool:
            print("OK", list(pool.imap_unordered(partial(work, out_dir="dst", scale=3), range(4))), flush=True)
    elif case == "initializer_global":
        lock = mp.Lock()
        pool = mp.Pool(2, initializer=init, initargs=(lock,))
        print("OK", pool.map(work_locked, range(4)), flush=True)
        pool.close(); pool.join()
    elif case == "explicit_args":
        tools = Tools()
        p = mp.Pool(2)
        res = [p.apply_async(work_tools, args=(i, tools, "mel")) for i in range(4)]
        p.close(); p.join()
        print("OK", [r.get() for r in res], flush=True)
    elif case == "parent_lambda":
        paths = ["a/b/v1.mp4", "a/c/v2.mp4"]
        vids = list(map(lambda p: osp.join(osp.basename(osp.dirname(p)), osp.basename(p)), paths))
        with mp.Pool(2) as pool:
            print("OK", pool.map(work, vids), flush=True)
    elif case == "start_method_guarded":
        mp.set_start_method(mp.get_start_method(), force=True)
        with mp.Pool(2) as pool:
            print("OK", pool.map(work, range(4)), flush=True)
