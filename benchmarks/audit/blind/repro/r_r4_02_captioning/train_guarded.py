"""cases: h5_attr (WSP301), lambda (WSP204), local_def (WSP204), safe (lazy/closed h5 + module-level fn)"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data import DataLoader


def train(mode):
    loader = DataLoader(mode)
    b = loader.get_batch("train")
    print("OK", mode, len(b))


if __name__ == "__main__":
    train(sys.argv[1])
