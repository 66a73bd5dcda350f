import torch
from torch.utils.data import Dataset


class Generator(Dataset):
    def __init__(self, conf=None, images=None, transforms=None, mode=None):
        self.conf = conf
        self.mask_getter = self.conf.get('Funcs').get('mask_getter')
        self.truth_getter = self.conf.get('Funcs').get('truth_getter')
        self.images = images
        self.transforms = transforms
        self.mode = mode

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return {'id': i, 'truth': self.truth_getter(self.images[i])}

    @classmethod
    def get_loader(cls, images, conf, transforms, mode):
        gen = cls(conf=conf, images=images, transforms=transforms, mode=mode)
        return torch.utils.data.DataLoader(gen, batch_size=2, shuffle=True, num_workers=0)

    @classmethod
    def get_loader_per_img(cls, images, conf, mode, transforms):
        loaders = []
        for f in images:
            gen = cls(conf=conf, images=[f], transforms=transforms, mode=mode)
            loaders.append(torch.utils.data.DataLoader(gen, batch_size=1, shuffle=False, num_workers=3))
        return loaders
