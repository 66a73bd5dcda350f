"""Mimics sharpDARTS cnn/dataset.py get_training_queues: for 'devanagari' a local
grey_pil_loader is stored as the ImageFolder-like dataset's loader; num_workers default 12."""
import numpy as np
import torch
from PIL import Image


class TinyImageFolder(torch.utils.data.Dataset):
    def __init__(self, transform, loader=None, n=8):
        self.transform = transform
        self.loader = loader
        rng = np.random.RandomState(0)
        self.imgs = [Image.fromarray(rng.randint(0, 255, (8, 8, 3)).astype(np.uint8)) for _ in range(n)]

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, i):
        img = self.imgs[i] if self.loader is None else self.loader(self.imgs[i])
        return self.transform(img), i


def get_training_queues(dataset_name, train_transform, valid_transform, batch_size=2, num_workers=12):
    if dataset_name == 'devanagari':
        def grey_pil_loader(img):
            return img.convert('L').convert('RGB')
        train_data = TinyImageFolder(train_transform, loader=grey_pil_loader)
    else:
        train_data = TinyImageFolder(train_transform)
    indices = list(range(len(train_data)))
    sampler = torch.utils.data.sampler.SubsetRandomSampler(indices)
    return torch.utils.data.DataLoader(train_data, batch_size=batch_size, sampler=sampler,
                                       num_workers=num_workers)
