"""train_srresnet.py shape: globals at top, main() under the guard; SRDataset read its json with `with open` -> safe."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch.utils.data import DataLoader
from srdata import SRDataset

workers = 4


def main():
    loader = DataLoader(SRDataset(), batch_size=2, num_workers=workers)
    print("OK guarded", sum(1 for _ in loader))


if __name__ == "__main__":
    main()
