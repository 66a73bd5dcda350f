"""a_01: a class defined inside a factory function in another module reaches DataLoader workers.

Cases: get_dataset (factory returns a local class, instantiated in main), load_split (factory returns
instances of a local class in a tuple), safe (module-level Base class)."""
import sys

from torch.utils.data import DataLoader

from factory import Base, get_dataset, load_split


def main(case):
    if case == "get_dataset":
        ds = get_dataset("coco")(8)
    elif case == "load_split":
        ds, _ = load_split(8)
    else:
        ds = Base(8)
    loader = DataLoader(ds, batch_size=4, num_workers=1)
    print("sum", sum(b.sum().item() for b in loader))


if __name__ == "__main__":
    main(sys.argv[1])
