# mimics CFSNet test.py / SPSR code/test.py (module-level loop over a loader that data/__init__.py
# builds with num_workers=1 for non-train phases) and SRGAN-PyTorch main.py (unguarded, workers default 0).
# cases: unguarded (hazard) | unguarded_zero (safe) | guarded (safe)
import sys
from torch.utils.data import DataLoader
from data_factory import ImgDataset, create_dataloader

case = sys.argv[1]

if case == "unguarded":
    test_loaders = [create_dataloader(ImgDataset(), "test")]
    for test_loader in test_loaders:
        for data in test_loader:
            pass
    print("OK unguarded loop finished")


def test(num_workers=0):
    for _ in DataLoader(ImgDataset(), batch_size=1, num_workers=num_workers):
        pass
    print("OK zero workers")


if case == "unguarded_zero":
    test()


def main():
    for data in create_dataloader(ImgDataset(), "test"):
        pass
    print("OK guarded")


if __name__ == "__main__" and case == "guarded":
    main()
