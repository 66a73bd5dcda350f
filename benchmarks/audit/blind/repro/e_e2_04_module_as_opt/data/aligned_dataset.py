# (data/transforms.py stands in for torchvision.transforms)
# mimics pix2pixHD data/aligned_dataset.py: initialize(opt) keeps opt on the dataset (self.opt = opt), and
# base_dataset.get_transform builds transforms.Lambda(lambda ...) inside __getitem__ (in the worker: safe)
import torch
from data import transforms


def get_transform(opt):
    return transforms.Compose([transforms.Lambda(lambda img: img[: opt.loadSize, : opt.loadSize]),
                               transforms.Lambda(lambda t: t.float())])


class AlignedDataset(torch.utils.data.Dataset):
    def initialize(self, opt):
        self.opt = opt

    def __getitem__(self, index):
        img = torch.full((8, 8), float(index))
        return get_transform(self.opt)(img)

    def __len__(self):
        return 4


def CreateDataLoader(opt):
    ds = AlignedDataset()
    ds.initialize(opt)
    return torch.utils.data.DataLoader(ds, batch_size=opt.batchSize, num_workers=int(opt.nThreads))
