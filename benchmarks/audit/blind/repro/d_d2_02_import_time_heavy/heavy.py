"""Stands for from_pretrained / torch.load / load_all_data: records each load in a log file."""
import os
import time

LOG = os.environ.setdefault("D2_HEAVY_LOG", os.path.join(os.path.dirname(os.path.abspath(__file__)), "loads.log"))


def load(what):
    time.sleep(0.2)
    with open(LOG, "a") as f:
        f.write(f"{os.getpid()} {what}\n")
    return {"vocab": list(range(10))}
