"""d_d2_05: Pool work functions and import-time loads in a helper module.
cases:
  def_under_guard     `def make_warps(i)` defined inside `if __name__ == "__main__":` and given to Pool(4).map
                      (FaceJam FaceJam.py:123, issue ctralie/FaceJam#2)   -> WSP106 hazard (Can't get attribute on __mp_main__)
  def_module_level    the same work as a module-level function, values passed as arguments  -> safe
                      (also shows the helper module facetools.py loading its model once per process: FaceJam FaceTools.py:10
                      -> WSP103, loads = 1 + pool size under spawn)
  staticmethod_partial  Pool in a helper module, partial(ClassifierService.run_single, ...) of a staticmethod of a
                      module-level class, called under the guard (sleep_classifiers classifier_service.py:52)  -> safe
"""
import os
import sys
from multiprocessing import Pool

import facetools

case = sys.argv[1]
if os.environ.get("D2_05_PARENT") is None:
    os.environ["D2_05_PARENT"] = str(os.getpid())


def make_warps_ml(i, shift):
    return i + shift + facetools.predictor["n"]


if __name__ == "__main__":
    if case == "def_under_guard":
        shift = 1

        def make_warps(i):
            return i + shift + facetools.predictor["n"]

        pool = Pool(4)
        print("OK", pool.map(make_warps, range(4)), flush=True)
        pool.close(); pool.join()
    elif case == "def_module_level":
        if os.path.exists(facetools.LOG):
            os.remove(facetools.LOG)
            facetools._load_predictor()          # re-log the parent's load after clearing
        pool = Pool(4)
        print("OK", pool.starmap(make_warps_ml, [(i, 1) for i in range(4)]), flush=True)
        pool.close(); pool.join()
        print("predictor loads:", len(open(facetools.LOG).read().splitlines()), flush=True)
    elif case == "staticmethod_partial":
        import service
        print("OK", service.ClassifierService.run_in_parallel(service.ClassifierService.run_single, [0, 1, 2],
                                                               {"name": "logreg"}, "all"), flush=True)
