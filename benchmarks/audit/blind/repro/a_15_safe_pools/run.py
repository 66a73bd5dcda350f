"""a_15: safe look-alikes around process pools.

Cases: manager_partial (Pool.map(functools.partial(module-level fn, ..., counter, lock)) where counter and
lock come from a Manager, pytorch-ssd open_images_downloader.py), spawn_launch (torch.multiprocessing.spawn
through launch.py of this script's module-level main, vq-vae-2 train_vqvae.py dist.launch(main, ...))."""
import functools
import sys
from multiprocessing import Manager, Pool

import launch


def download(root, counter, lock, path):
    with lock:
        counter.value += 1
    return len(root) + path


def main(rank, total):
    print("rank", rank, "of", total, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "manager_partial":
        with Pool(2) as p:
            m = Manager()
            counter, lock = m.Value("i", 0), m.Lock()
            res = p.map(functools.partial(download, "root", counter, lock), range(4))
            print("sum", sum(res) + counter.value)
    else:
        launch.launch(main, 2, args=(2,))
        print("sum", 2)
