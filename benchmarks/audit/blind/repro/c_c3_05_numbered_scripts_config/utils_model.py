"""deepslide utils_model.py / utils_processing.py in miniature (module-level functions and classes)."""
import functools
from multiprocessing import Process, Queue

import torch
from torch.utils.data import DataLoader, Dataset


class PatchDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([float(i)])


def train_resnet(num_workers, path_mean):
    loader = DataLoader(PatchDataset(), batch_size=4, shuffle=True, num_workers=num_workers)
    return sum(1 for _ in loader)


def find_patch(xy, scale):
    return xy * scale


def find_patch_mp(func, in_queue, out_queue):
    while True:
        xy = in_queue.get()
        if xy is None:
            break
        out_queue.put(func(xy))


def produce_patches(num_workers):
    in_queue, out_queue = Queue(), Queue()
    processes = [Process(target=find_patch_mp, args=(functools.partial(find_patch, scale=2), in_queue, out_queue))
                 for __ in range(num_workers)]
    for p in processes:
        p.daemon = True
        p.start()
    for xy in range(6):
        in_queue.put(xy)
    for __ in range(num_workers):
        in_queue.put(None)
    out = sorted(out_queue.get() for __ in range(6))
    for p in processes:
        p.join(timeout=5)
    return out
