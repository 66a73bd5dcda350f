"""Mimics BayesNAS search/lib.py: a thin wrapper with num_workers=0 default."""
import dataloader


def build_loader_cifar_alt(train_batch_size, val_batch_size, num_workers=0, safe=False):
    return dataloader.get_loader(train_batch_size, val_batch_size, num_workers, safe=safe)
