"""Shape of wsi-preprocessing example.py: a module-level script calls the package's run_tiling (heavy)
and calculate_filters, which starts a ProcessPoolExecutor in wsi_preprocessing/filters.py.
Cases: hazard (unguarded, as example.py), guarded (safe twin). Run: python example.py CASE"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wsi_pp as pp

CASE = sys.argv[1]
LOG = os.path.join(tempfile.gettempdir(), "g_g2_04_tiling.log")


def run():
    pp.run_tiling(LOG)
    print("OK", CASE, pp.calculate_filters(4))


if CASE == "hazard":
    if __name__ == "__main__" and os.path.exists(LOG):
        os.remove(LOG)
    pp.run_tiling(LOG)                                     # heavy work at import (example.py:6/9)
    print("OK", CASE, pp.calculate_filters(4))             # pool started at import (example.py:11)
elif __name__ == "__main__":
    if os.path.exists(LOG):
        os.remove(LOG)
    run()
