"""mimics tools/train.py / tools/eval.py: `opt = parse_opt(); train(opt)` at module level (WSP101).
case: unguarded (dataset itself is picklable: the 'safe' mode of data.py)"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data import DataLoader


def train(mode):
    loader = DataLoader(mode)
    b = loader.get_batch("train")
    print("OK", mode, len(b))


train("safe")
