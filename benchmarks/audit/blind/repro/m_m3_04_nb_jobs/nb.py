"""Shape: functions defined in notebook cells reach a multiprocessing Pool (Adv_Fin_ML_Exercises).
A Jupyter kernel's __main__ has no __file__: emulated by deleting it before the "cells" run, so a spawned
worker cannot re-import the defining module (as in the a_14 repro).
cases:
  nb_expandcall - Labeling notebook: expandCall (Pool function) and applyPtSlOnT1 defined in cells
  nb_func       - 05 notebook: mp_func defined in a cell, sent inside the jobs dict to snp.processJobs
  module_funcs  - safe twin: snp.mpPandasObj(snp.mpNumCoEvents, ...) (module functions only)
"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import __main__
case = sys.argv[1] if len(sys.argv) > 1 else "nb_func"
if getattr(__main__, "__spec__", None) is None and hasattr(__main__, "__file__") and __name__ == "__main__":
    del __main__.__file__
import snp

if __name__ == "__main__":
    # ---- cells ----
    def applyPtSlOnT1(molecule):
        return max(molecule)

    def expandCall(kargs):
        func = kargs['func']; del kargs['func']
        return func(**kargs)

    def mp_func(indM):
        return sum(indM)

    if case == "nb_expandcall":
        jobs = [{'molecule': [1, 2], 'func': applyPtSlOnT1}, {'molecule': [3], 'func': applyPtSlOnT1}]
        print("result", snp.processJobs(jobs, numThreads=2, expand=expandCall))
    elif case == "nb_func":
        jobs = [{'func': mp_func, 'indM': [1, 2]}, {'func': mp_func, 'indM': [3]}]
        print("result", snp.processJobs(jobs, numThreads=2))
    elif case == "module_funcs":
        print("result", snp.mpPandasObj(snp.mpNumCoEvents, ('molecule', [1, 2, 3, 4]), 2))
