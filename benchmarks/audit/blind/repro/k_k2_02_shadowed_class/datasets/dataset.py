import torch
import torch.utils.data as data
from datasets.dataset_builder import DATA_LAYERS


@DATA_LAYERS.register("ASSEMBLY101-O")
class THUMOSDataset(data.Dataset):          # instances of THIS class go to the workers
    def __init__(self, cfg, mode="train"):
        self.x = torch.arange(8.0)
    def __getitem__(self, i):
        return self.x[i]
    def __len__(self):
        return len(self.x)


@DATA_LAYERS.register("THUMOS_ANTICIPATION")
class THUMOSDataset(data.Dataset):          # same name: rebinds datasets.dataset.THUMOSDataset
    def __init__(self, cfg, mode="train"):
        self.x = torch.arange(8.0)
    def __getitem__(self, i):
        return self.x[i] + 100
    def __len__(self):
        return len(self.x)


@DATA_LAYERS.register("FINEACTION")
class FINEACTIONDataset(data.Dataset):      # uniquely named: safe twin
    def __init__(self, cfg, mode="train"):
        self.x = torch.arange(8.0)
    def __getitem__(self, i):
        return self.x[i]
    def __len__(self):
        return len(self.x)
