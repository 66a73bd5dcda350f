"""Shape: train.py prepends autoaugment.ImageNetPolicy() (SubPolicy keeps lambdas from a dict built in
__init__) to the transform list when --DA is given; the Compose lives on the dataset sent to 2 DataLoader workers.
Cases: da (policy in the transform: hazard), noda (plain transforms: safe). Run guarded to isolate the pickling."""
import sys
import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from autoaugment import ImageNetPolicy


class Compose(object):  # stand-in for torchvision.transforms.Compose (torchvision is not installed)
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class ToTensor(object):
    def __call__(self, img):
        return torch.from_numpy(np.asarray(img, dtype=np.float32).copy())


class Folder(Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 4

    def __getitem__(self, i):
        img = Image.fromarray(np.full((8, 8, 3), i * 10, np.uint8))
        return self.transform(img), i


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "da"
    tl = [ToTensor()]
    if case == "da":
        tl = [ImageNetPolicy()] + tl
    loader = DataLoader(Folder(Compose(tl)), batch_size=2, num_workers=2)
    print("batches", sum(1 for _ in loader))
