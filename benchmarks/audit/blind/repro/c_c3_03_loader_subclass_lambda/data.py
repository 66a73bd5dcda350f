"""pigvae/synthetic_graphs/data.py in miniature: a DataLoader subclass whose __init__ builds a lambda collate_fn."""
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def binomial_graph(n, p):
    return (np.random.rand(n, n) < p).astype(np.float32)


class GraphGenerator:
    def __init__(self):
        # module-level functions kept in an attribute: picklable by reference
        self.graph_params = {"binomial": {"func": binomial_graph, "p": (0.2, 0.6)}}

    def __call__(self, n):
        spec = self.graph_params["binomial"]
        return spec["func"](n, np.random.uniform(*spec["p"]))


class RandomGraphDataset(Dataset):
    def __init__(self, samples_per_epoch=8):
        self.samples_per_epoch = samples_per_epoch
        self.graph_generator = GraphGenerator()

    def __len__(self):
        return self.samples_per_epoch

    def __getitem__(self, idx):
        return self.graph_generator(4)


class DenseGraphBatch:
    @classmethod
    def from_sparse_graph_list(cls, data_list, labels=False):
        return torch.stack([torch.from_numpy(g) for g in data_list])


def dense_collate(data_list, labels=False):
    return DenseGraphBatch.from_sparse_graph_list(data_list, labels)


class DenseGraphDataLoader(DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=False, labels=False, **kwargs):
        super().__init__(dataset, batch_size, shuffle,
                         collate_fn=lambda data_list: DenseGraphBatch.from_sparse_graph_list(data_list, labels),
                         **kwargs)


class NamedCollateDataLoader(DataLoader):  # safe twin: functools.partial of a module-level function
    def __init__(self, dataset, batch_size=1, shuffle=False, labels=False, **kwargs):
        import functools
        super().__init__(dataset, batch_size, shuffle,
                         collate_fn=functools.partial(dense_collate, labels=labels), **kwargs)


class GraphDataModule:
    def __init__(self, num_workers=2, loader_cls=DenseGraphDataLoader):
        self.num_workers = num_workers
        self.loader_cls = loader_cls

    def train_dataloader(self):
        return self.loader_cls(dataset=RandomGraphDataset(), batch_size=4, num_workers=self.num_workers)
