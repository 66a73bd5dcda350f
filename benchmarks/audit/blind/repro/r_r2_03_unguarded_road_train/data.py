# mimics DeepGlobe data.py: ImageFolder keeps the module-level default_loader (picklable by reference)
import numpy as np
import torch
import torch.utils.data as data


def default_loader(id, root):
    img = np.full((3, 4, 4), float(len(id)), np.float32)
    mask = np.zeros((1, 4, 4), np.float32)
    return img, mask


class ImageFolder(data.Dataset):
    def __init__(self, trainlist, root):
        self.ids = trainlist
        self.loader = default_loader
        self.root = root

    def __getitem__(self, index):
        img, mask = self.loader(self.ids[index], self.root)
        return torch.Tensor(img), torch.Tensor(mask)

    def __len__(self):
        return len(list(self.ids))
