from torch.utils.data import DataLoader
from .bases import ImageDataset, LazyImageDataset, ListDataset


def make_dataloader(cfg, case):
    if case == "hazard":
        ds = ImageDataset(cfg.train_dataset, lmdb_f=cfg.lmdb_f)
    elif case == "lazy":
        ds = LazyImageDataset(cfg.train_dataset, lmdb_f=cfg.lmdb_f)
    else:
        ds = ListDataset(cfg.list_file)
    return DataLoader(ds, batch_size=2, num_workers=cfg.num_workers)
