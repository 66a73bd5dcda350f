from multiprocessing import cpu_count
from torch.utils import data
from dataset import Dataset

max_workers = min(cpu_count(), 2)


def get_generator(path, keys, num_workers=None, lazy=False):
    if num_workers is None:
        num_workers = max_workers
    ds = Dataset(path, keys, lazy=lazy)
    return data.DataLoader(ds, batch_size=2, num_workers=num_workers)
