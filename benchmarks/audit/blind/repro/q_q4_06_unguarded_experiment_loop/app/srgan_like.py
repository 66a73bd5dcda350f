# mimics srgan.py Experiment.train() + age/srgan.py dataset_setup(): DataLoader(num_workers=settings.number_of_data_workers)
import io
import torch
from torch.utils.data import Dataset, DataLoader


class AgeLikeDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.full((3,), float(i)), i


def load(buf):  # utility.py:77 style: the map_location lambda is consumed by torch.load in the parent (safe)
    return torch.load(buf, map_location=lambda storage, loc: storage)


class Experiment:
    def __init__(self, settings):
        self.settings = settings

    def dataset_setup(self):
        self.train_dataset_loader = DataLoader(AgeLikeDataset(), batch_size=2, shuffle=True,
                                               num_workers=self.settings["number_of_data_workers"], drop_last=True)

    def train(self):
        self.dataset_setup()
        buf = io.BytesIO()
        torch.save({"w": torch.ones(1)}, buf)
        buf.seek(0)
        state = load(buf)
        return sum(1 for _ in self.train_dataset_loader) + int(state["w"].item())
