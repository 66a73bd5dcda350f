# mimics GraphMAE chem/pretraining.py (guarded main). cases:
#  hazard  -> DataLoaderMasking (lambda collate in loader __init__), num_workers=2
#  safe    -> DataLoaderMaskingPred (bound-method collate on the loader subclass), num_workers=2
import os
import sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dataloader import DataLoaderMasking, DataLoaderMaskingPred


def main(case):
    dataset = [torch.ones(3) * i for i in range(8)]
    if case == "hazard":
        loader = DataLoaderMasking(dataset, batch_size=4, shuffle=True, num_workers=2)
    else:
        loader = DataLoaderMaskingPred(dataset, batch_size=4, shuffle=True, num_workers=2, mask_rate=0.15)
    print("batches", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
