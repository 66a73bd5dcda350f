# mimics datasets.py + utils.py: dataset reads a json list with `with open` (closed) and keeps a module-level transform
import json, os
import torch
from torch.utils.data import Dataset

HERE = os.path.dirname(os.path.abspath(__file__))


class ImageTransforms:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return x * self.scale


class SRDataset(Dataset):
    def __init__(self):
        p = os.path.join(HERE, "images.json")
        if not os.path.exists(p):
            with open(p, "w") as j:
                json.dump(list(range(6)), j)
        with open(p, "r") as j:
            self.images = json.load(j)
        self.transform = ImageTransforms(2.0)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.transform(torch.tensor(float(self.images[i])))


def make_ckpt():
    p = os.path.join(HERE, "ckpt.pth")
    if not os.path.exists(p):
        torch.save({"generator": torch.nn.Linear(1, 1)}, p)
    return p
