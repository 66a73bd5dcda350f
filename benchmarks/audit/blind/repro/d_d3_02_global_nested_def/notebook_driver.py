"""Stands for the notebook cells (Tuto-GUDHI-ConfRegions cell 12 / 30) calling the module function.
Cases: array (hazard, line 47 shape), pairwise (hazard, line 67 shape), fixed (safe twin: module-level function + partial)."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
import persistence_stats as ps

if __name__ == "__main__":
    case = sys.argv[1]
    W = np.random.rand(20, 2)
    if case == "array":
        print(ps.hausd_interval(W))
    elif case == "pairwise":
        print(ps.hausd_interval(np.random.rand(20, 20), pairwise_dist=True))
    elif case == "fixed":
        print(ps.hausd_interval_fixed(W))
    print("OK", case)
