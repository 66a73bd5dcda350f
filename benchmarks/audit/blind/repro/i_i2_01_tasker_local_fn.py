"""Shape of IBM/EvolveGCN: a 'tasker' object builds its feature functions as local defs
(build_get_node_feats -> def get_node_feats) and keeps them as attributes; a Dataset holds the
tasker and a DataLoader(num_workers>0) pickles the dataset for each worker (spawn).
Cases: hazard (local def stored on tasker), bound_method (safe: attribute is a bound method of a
picklable object, like link_pred_tasker.py:83), local_in_worker (safe: local def created and
called inside __getitem__, never pickled, like taskers_utils.sample_edges)."""
import sys
import torch
from torch.utils.data import Dataset, DataLoader


class Data:
    def __init__(self):
        self.feats = torch.arange(6.0).reshape(3, 2)

    def prepare_node_feats(self, x):
        return x * 2


class Tasker:
    def __init__(self, data, mode):
        self.data = data
        if mode == "hazard":
            self.get_node_feats = self.build_get_node_feats(data)
        elif mode == "bound_method":
            self.get_node_feats = data.prepare_node_feats
        else:
            self.get_node_feats = None

    def build_get_node_feats(self, data):
        def get_node_feats(adj):
            return data.feats + adj
        return get_node_feats

    def get_sample(self, idx):
        if self.get_node_feats is None:
            def sample_edges(n):  # local function used only inside the worker
                return torch.full((n,), float(idx))
            return sample_edges(2)
        return self.get_node_feats(self.data.feats[idx])


class Split(Dataset):
    def __init__(self, tasker):
        self.tasker = tasker

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.tasker.get_sample(i)


def main(case):
    tasker = Tasker(Data(), case)
    loader = DataLoader(Split(tasker), batch_size=1, num_workers=2)
    for b in loader:
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
