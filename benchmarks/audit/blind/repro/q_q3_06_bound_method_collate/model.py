# stand-in for Text2SQL src/model/Model.py (a pl.LightningModule; nn.Module here, pytorch_lightning not installed)
import os
import torch
import torch.nn as nn
from dbengine import DBEngine


class Text2SQL(nn.Module):
    def __init__(self, num_workers=2, lazy_db=False, lambdas=True):
        super().__init__()
        self.num_workers = num_workers
        self.dbengine = DBEngine("kospi.db", lazy=lazy_db)
        self.lin = nn.Linear(2, 2)
        if lambdas:
            self.totensor = lambda x: torch.LongTensor(x)
            self.totensor_cpu = lambda x: torch.LongTensor(x)

    def create_dataloader(self):
        num_workers = 0 if os.name == "nt" else self.num_workers
        dataset = [{"question": f"q{i}", "sql": {"sel": i}} for i in range(8)]
        return torch.utils.data.DataLoader(dataset, batch_size=2, shuffle=True, num_workers=num_workers,
                                           collate_fn=self._collate_fn)

    def _collate_fn(self, x):
        return x

    def train_dataloader(self):
        return self.create_dataloader()

    def configure_optimizers(self):
        return torch.optim.AdamW(filter(lambda p: p.requires_grad, self.parameters()), lr=1e-3)
