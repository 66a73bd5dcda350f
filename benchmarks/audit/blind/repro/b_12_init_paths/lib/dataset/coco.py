import torch
from torch.utils.data import Dataset


class COCODataset(Dataset):
    def __init__(self, cfg, is_train, transform=None):
        self.image_size = cfg["IMAGE_SIZE"]
        self.transform = transform
        self.db = [{"joints": float(i)} for i in range(8)]

    def __len__(self):
        return len(self.db)

    def __getitem__(self, i):
        x = torch.full((2,), self.db[i]["joints"])
        return self.transform(x) if self.transform else x
