"""Shape of IBM/Project_CodeNet gnn-based-experiments/src/main.py: inside main() the dataset's
transform is set to transforms.Compose([lambda data: augment_edge(data, net)]); the indexed
sub-datasets keep the transform and go to a DataLoader subclass whose collate_fn is a module-level
callable class (Collater), with --num_workers=80 from run.sh.
Cases: hazard (lambda in Compose kept on the dataset), named (safe twin: functools.partial of a
module-level function), collater_only (safe: no transform; only the Collater instance reaches the
workers)."""
import sys
from functools import partial
import torch
from torch.utils.data import Dataset, DataLoader


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


def augment_edge(data, net):
    return data + net


class GraphDataset(Dataset):
    def __init__(self, idx=None):
        self.transform = None
        self.idx = list(range(8)) if idx is None else idx

    def __getitem__(self, i):
        if isinstance(i, list):  # like PyG's dataset[split_idx]: a copy keeping the transform
            sub = GraphDataset([self.idx[j] for j in i])
            sub.transform = self.transform
            return sub
        x = torch.tensor(float(self.idx[i]))
        return x if self.transform is None else self.transform(x)

    def __len__(self):
        return len(self.idx)


class Collater:
    def __init__(self, n):
        self.n = n

    def __call__(self, batch):
        return torch.stack(batch)


class GLoader(DataLoader):
    def __init__(self, dataset, batch_size=1, n_devices=1, **kw):
        super().__init__(dataset, batch_size, collate_fn=Collater(n_devices), **kw)


def main(case, num_workers=2):
    dataset = GraphDataset()
    net = 3
    if case == "hazard":
        dataset.transform = Compose([lambda data: augment_edge(data, net)])
    elif case == "named":
        dataset.transform = Compose([partial(augment_edge, net=net)])
    loader = GLoader(dataset[[0, 1, 2, 3]], batch_size=2, num_workers=num_workers)
    for _ in loader:
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
