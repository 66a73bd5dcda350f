"""FaceJam FaceTools.py: loads a landmark model at import (dlib.shape_predictor(...)); logged per process."""
import os
import time

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "loads.log")


def _load_predictor():
    time.sleep(0.2)
    with open(LOG, "a") as f:
        f.write(f"{os.getpid()} predictor\n")
    return {"n": 68}


predictor = _load_predictor()
