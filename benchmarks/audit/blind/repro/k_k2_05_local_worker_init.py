"""poselstm-pytorch shape (data/custom_dataset_data_loader.py, reached from train.py via
data/data_loader.py): CustomDatasetDataLoader.initialize defines init_fn inside the method and passes it as
worker_init_fn of a DataLoader(num_workers=opt.nThreads, default 8).
cases: local_init_fn (as the repository), safe (module-level worker_init_fn)."""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class PoseDataset(Dataset):
    def __len__(self):
        return 6
    def __getitem__(self, i):
        return torch.tensor(float(i))


def seed_worker(worker_id, seed=0):
    torch.manual_seed(seed)


class CustomDatasetDataLoader:
    def initialize(self, seed, nthreads, local):
        def init_fn(worker_id):
            torch.manual_seed(seed)
        self.dataloader = DataLoader(PoseDataset(), batch_size=2, num_workers=nthreads,
                                     worker_init_fn=init_fn if local else seed_worker)
    def __iter__(self):
        for data in self.dataloader:
            yield data


if __name__ == "__main__":
    case = sys.argv[1]
    dl = CustomDatasetDataLoader()
    dl.initialize(0, 2, local={"local_init_fn": True, "safe": False}[case])
    print("OK", case, [d.tolist() for d in dl])
