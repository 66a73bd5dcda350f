"""Mimics data/__init__.py: CustomDatasetDataLoader builds DataLoader(num_workers=opt.num_threads)."""
import torch
from data.unaligned_dataset import UnalignedDataset
from data.aligned_dataset import AlignedDataset
from data.clevr_dataset import CLEVRDataset

MODES = {"unaligned": UnalignedDataset, "aligned": AlignedDataset, "clevr": CLEVRDataset}


class CustomDatasetDataLoader:
    def __init__(self, opt):
        self.opt = opt
        self.dataset = MODES[opt.dataset_mode](opt)
        self.dataloader = torch.utils.data.DataLoader(self.dataset, batch_size=2, shuffle=False,
                                                      num_workers=int(opt.num_threads))

    def __iter__(self):
        for data in self.dataloader:
            yield data


def create_dataset(opt):
    return CustomDatasetDataLoader(opt)
