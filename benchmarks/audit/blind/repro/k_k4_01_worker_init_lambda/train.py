# Mimics SNE-RoadSeg train.py: guarded script, loader from the data package.
# cases: hazard (lambda worker_init_fn, 2 workers), safe (partial of a module-level function)
import sys
import types
from data import CreateDataLoader

if __name__ == "__main__":
    case = sys.argv[1]
    opt = types.SimpleNamespace(case=case, seed=0, num_threads=2)
    n = sum(len(b) for b in CreateDataLoader(opt))
    print("OK batches items", n)
