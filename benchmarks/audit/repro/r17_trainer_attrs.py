"""r17: a trainer object keeps unpicklable attributes (defaultdict(lambda), a local data_collator) while
building its own DataLoader with workers (trl BCO/ORPO/CPO, axolotl, trl GRPO/A2PO shapes).

Cases: metrics_lambda = the trainer stores defaultdict(lambda) but hands the DataLoader only the dataset
and a module-level collator object: the trainer itself is never pickled; local_collator = the trainer
defines `def data_collator(features)` in __init__ and passes it as collate_fn (trl#2979/#3567);
bound_method = collate_fn is a bound method of the trainer, which drags the whole trainer (and its
defaultdict(lambda)) into the pickle.
"""
import sys
from collections import defaultdict

import torch
from torch.utils.data import DataLoader, TensorDataset


class Collator:
    def __call__(self, features):
        return torch.stack([x for (x,) in features])


class Trainer:
    def __init__(self, case):
        self.case = case
        self._stored_metrics = defaultdict(lambda: defaultdict(list))
        self.data_collator = Collator()
        if case == "local_collator":
            def data_collator(features):
                return torch.stack([x for (x,) in features])
            self.data_collator = data_collator

    def collate(self, features):
        return torch.stack([x for (x,) in features])

    def get_train_dataloader(self):
        collate_fn = self.collate if self.case == "bound_method" else self.data_collator
        return DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, collate_fn=collate_fn, num_workers=2)

    def train(self):
        print("sum", sum(b.sum().item() for b in self.get_train_dataloader()))


if __name__ == "__main__":
    Trainer(sys.argv[1]).train()
