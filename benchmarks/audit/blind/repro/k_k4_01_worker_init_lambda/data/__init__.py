# Mimics SNE-RoadSeg data/__init__.py: a wrapper class builds the DataLoader
# with a worker_init_fn lambda closing over opt.
import functools
import numpy
import torch
import torch.utils.data


class TinyDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i)])


def seed_worker(seed, worker_id):
    numpy.random.seed(seed + worker_id)


class CustomDatasetDataLoader:
    def initialize(self, opt):
        self.dataset = TinyDataset()
        if opt.case == "hazard":
            wif = lambda worker_id: numpy.random.seed(opt.seed + worker_id)
        else:  # safe: a module-level function bound with functools.partial
            wif = functools.partial(seed_worker, opt.seed)
        self.dataloader = torch.utils.data.DataLoader(
            self.dataset, batch_size=2, num_workers=int(opt.num_threads),
            worker_init_fn=wif)

    def __iter__(self):
        for data in self.dataloader:
            yield data


def CreateDataLoader(opt):
    dl = CustomDatasetDataLoader()
    dl.initialize(opt)
    return dl
