"""n4 shape 06: collate_fn=lambda on a DataLoader with workers (SSAFY-Autonomous-PJT-Daldidan
build_embeddings.py, guarded script, num_workers=8). Cases: hazard (lambda, guarded),
hazard_unguarded (lambda at top level of an unguarded script, like train_kfold.py and
only_image_embedding.py: the lambda fails first), safe (module-level function).
"""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class Crops(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return None if i == 3 else torch.zeros(2)


def keep(x):
    return [s for s in x if s is not None]


def build(case):
    fn = keep if case == "safe" else (lambda x: [s for s in x if s is not None])
    dl = DataLoader(Crops(), batch_size=2, num_workers=2, collate_fn=fn)
    return sum(len(b) for b in dl)


case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
if case == "hazard_unguarded":
    print("OK", build("hazard"))
elif __name__ == "__main__":
    print("OK", build(case))
