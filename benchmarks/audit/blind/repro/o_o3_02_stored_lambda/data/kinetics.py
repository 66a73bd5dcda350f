import numpy as np
import torch
from utils import gtransforms

def _load(root, fl):
    return np.full((2, 2), len(fl), dtype=np.float32)

class _Loader(object):
    def __init__(self, root):
        self.root = root
    def __call__(self, fl):
        return _load(self.root, fl)

class Kinetics(torch.utils.data.Dataset):
    # as pytorch-resnet3d data/kinetics.py:44-63
    def __init__(self, root, case):
        self.root = root
        self.data = [["a", "bb"], ["ccc", "d"], ["e", "f"], ["g", "h"]]
        self.clip_transform = gtransforms.Compose([gtransforms.ToTensor(use_lambda=(case == "totensor_lambda"))])
        if case == "loader_lambda":
            self.loader = lambda fl: _load(self.root, fl)   # kinetics.py:63
        else:
            self.loader = _Loader(root)
    def __getitem__(self, index):
        imgs = [self.loader(f) for f in self.data[index]]
        return self.clip_transform(imgs)
    def __len__(self):
        return len(self.data)
