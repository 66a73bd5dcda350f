"""Shape (scal-sdt): data module returns a local collate_fn from a factory; model module builds the DataLoader with
num_workers>0; train.py is guarded. Cases: hazard | safe"""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkg.model import train_dataloader

def main(case):
    n = sum(len(ids) for _, ids in train_dataloader(case))
    print("OK", n)

if __name__ == "__main__":
    main(sys.argv[1])
