"""Shape: a class built inside a function (class factory) whose instances reach DataLoader workers.

Mimics Transfer-Learning-Library: tllib/vision/datasets/partial/__init__.py (partial() returns
class PartialDataset defined inside it), datasets/reid/convert.py (convert_to_pytorch_dataset returns an
instance of a local ReidDataset), and tllib/vision/transforms/segmentation.py / keypoint_detection.py
(`ToTensor = wrapper(T.ToTensor)` at module level: the class is still `wrapper.<locals>.WrapperTransform`).
Cases: factory (hazard), instance_factory (hazard), wrapper_alias (hazard), module_class (safe twin).
"""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class ImageList(Dataset):
    def __init__(self, n=8, transform=None):
        self.data = torch.arange(n, dtype=torch.float32)
        self.transform = transform

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        x = self.data[i]
        return self.transform(x) if self.transform is not None else x


def partial(dataset_class, kept):
    class PartialDataset(dataset_class):          # local class (hazard line)
        def __init__(self, **kw):
            super().__init__(**kw)
            self.kept = kept
    return PartialDataset


def convert_to_pytorch_dataset(n):
    class ReidDataset(ImageList):                  # local class, instance returned
        pass
    return ReidDataset(n)


class Scale:
    def __call__(self, x):
        return x * 2


def wrapper(transform):
    class WrapperTransform(transform):            # local class
        def __call__(self, x, *a):
            return super().__call__(x)
    return WrapperTransform


WrappedScale = wrapper(Scale)                     # module-level alias: pickle still uses the qualname


class PartialImageList(ImageList):                # safe twin: module-level subclass
    pass


def main(case):
    if case == "factory":
        ds = partial(ImageList, kept=[0, 1])(n=8)
    elif case == "instance_factory":
        ds = convert_to_pytorch_dataset(8)
    elif case == "wrapper_alias":
        ds = ImageList(8, transform=WrappedScale())
    elif case == "module_class":
        ds = PartialImageList(n=8, transform=Scale())
    else:
        raise SystemExit("unknown case " + case)
    loader = DataLoader(ds, batch_size=4, num_workers=2)
    total = sum(float(b.sum()) for b in loader)
    print("OK", case, total)


if __name__ == "__main__":
    main(sys.argv[1])
