# Mimics BasicSTISR interfaces/base.py TextBase.get_train_data: DataLoader(num_workers=cfg.workers, 8 -> 2).
import torch
from dataset.dataset import lmdbDataset_real, alignCollate_syn


class TextBase:
    def __init__(self, cfg, lazy):
        self.cfg = cfg
        self.load_dataset = lmdbDataset_real
        self.lazy = lazy

    def get_train_data(self):
        ds = self.load_dataset(self.cfg["root"], lazy=self.lazy)
        return torch.utils.data.DataLoader(ds, batch_size=2, shuffle=True, num_workers=self.cfg["workers"],
                                           collate_fn=alignCollate_syn())

    def train(self):
        return sum(int(b.sum()) for b in self.get_train_data())
