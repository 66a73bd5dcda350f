import torch
from . import tiny_transforms as transforms

class BaseDataset(torch.utils.data.Dataset):
    def initialize(self, opt):
        self.opt = opt
        self.items = [torch.full((3,), float(i)) for i in range(8)]
        self.img2tensor = self.img_transformer()   # stored on the dataset

    def img_transformer(self):
        tl = []
        if self.opt.resize_or_crop == 'none':       # repo default
            tl.append(transforms.Lambda(lambda image: image))   # hazard: lambda kept on dataset
        else:
            tl.append(transforms.Scale(1.0))
        return transforms.Compose(tl)

    def __getitem__(self, i):
        return self.img2tensor(self.items[i])

    def __len__(self):
        return len(self.items)
