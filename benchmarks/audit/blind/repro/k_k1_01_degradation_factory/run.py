# mimics PMRF train.py / test.py / inference.py (guarded; workers from --num_workers default 10)
# cases: compose_lambda | local_def (hazards) ; module_partial | inference_local_def_zero_workers (safe)
import sys
from torch.utils.data import DataLoader
from degradations import create_degradation
from dataset import ImageFolderDataset


def main(case):
    if case == "inference_local_def_zero_workers":
        def identity(x):
            return x, None
        ds = ImageFolderDataset(4, identity)
        dl = DataLoader(ds, batch_size=2, num_workers=0)
    else:
        ds = ImageFolderDataset(4, create_degradation(case))
        dl = DataLoader(ds, batch_size=2, num_workers=2)
    n = sum(1 for _ in dl)
    print("OK batches", n)


if __name__ == "__main__":
    main(sys.argv[1])
