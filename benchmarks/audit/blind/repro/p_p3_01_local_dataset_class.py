"""p3 shape 01 (brocolli test_quanzation_nets.py): a Dataset subclass defined inside a
test function, instances handed to DataLoader(num_workers>0) -> WSP203 under spawn.
Cases: hazard (local class), safe (module-level class), local_model_parent (local nn.Module
used only in the parent loop; dataset module-level)."""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class Base(Dataset):
    def __init__(self, n=16):
        self.x = torch.arange(n, dtype=torch.float32).view(n, 1)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], int(i % 2)


class ModuleLevelDS(Base):
    mirrors = ["http://example.invalid/"]


def run(case):
    class LocalDS(Base):          # like MNISTCHINA inside test_mnist()
        mirrors = ["http://example.invalid/"]

    class LocalNet(torch.nn.Module):  # like Net inside test_mnist(): parent only
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(1, 2)

        def forward(self, x):
            return self.fc(x)

    ds = LocalDS() if case == "hazard" else ModuleLevelDS()
    model = LocalNet()
    loader = DataLoader(ds, batch_size=4, num_workers=2)
    n = 0
    with torch.no_grad():
        for x, y in loader:
            model(x)
            n += 1
    print("OK batches", n)


if __name__ == "__main__":
    run(sys.argv[1])
