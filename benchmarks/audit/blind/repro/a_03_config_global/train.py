"""a_03: a Dataset in another module reads a config global that main() fills in place
(`M.update(C.model)` in lcnn train.py/process.py); spawned workers import the module afresh and see it empty.

Cases: hazard (the worker reads config.M), safe (the value is passed to the dataset)."""
import sys

from torch.utils.data import DataLoader

from config import C, M
from data import Wireframe


def main(case):
    C.update({"model": {"image": {"mean": 0.5}}, "io": {"num_workers": 2}})
    M.update(C["model"])
    ds = Wireframe(8) if case == "hazard" else Wireframe(8, mean=M["image"]["mean"])
    loader = DataLoader(ds, batch_size=4, num_workers=C["io"]["num_workers"])
    print("sum", sum(b.sum().item() for b in loader))


if __name__ == "__main__":
    main(sys.argv[1])
