"""Mimics train.py: top-level `from evaluate import calculate_total_pckh`; the training loop
(guarded) calls it.  Cases: hazard (Manager at import of evaluate), safe (LAZY=1)."""
import os
import sys

case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if __name__ == "__main__":
    os.environ["LAZY"] = "1" if case == "safe" else "0"

from evaluate import calculate_total_pckh

if __name__ == "__main__":
    print("OK score", calculate_total_pckh([[1, 2], [3], [4, 5]]))
