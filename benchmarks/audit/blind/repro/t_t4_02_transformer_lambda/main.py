"""kekas-like: Transformer(key, fn) objects in a Compose kept on the dataset.
Cases: hazard (lambda in a local get_transforms), cross_module (only the library
to_torch() lambda), safe (module-level function + normalize() class instance)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch.utils.data import Dataset, DataLoader
import transformations as transforms
from transformations import Transformer, to_torch, normalize, to_torch_fn


class DataKek(Dataset):
    def __init__(self, n, transforms=None):
        self.n = n
        self.transforms = transforms

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        datum = {"image": [float(i)] * 3, "label": i}
        return self.transforms(datum) if self.transforms else datum


def get_transforms(case, size=2):
    if case == "hazard":
        pre = Transformer("image", lambda x: x[:size] + x[size:])
        return transforms.Compose([pre, Transformer("image", to_torch_fn), Transformer("image", normalize())])
    if case == "cross_module":
        return transforms.Compose([Transformer("image", to_torch()), Transformer("image", normalize())])
    return transforms.Compose([Transformer("image", to_torch_fn), Transformer("image", normalize())])


def main(case):
    ds = DataKek(6, get_transforms(case))
    dl = DataLoader(ds, batch_size=2, num_workers=2)
    print(sum(b["image"].sum().item() for b in dl))
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
