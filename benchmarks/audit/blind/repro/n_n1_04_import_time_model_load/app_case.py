"""Mimics nowcastnet/app.py of ai4time/mrms-downloader: module-level `model = Model(args)` (torch.load of a
checkpoint) while the DataLoader loop (num_workers=cpu_worker, default 1) is started under the main guard.
cases: import_heavy (repository shape: each spawned worker re-imports the script and reloads the model),
lazy (model built inside main: loaded once). The marker file counts loads."""
import os
import sys
import tempfile
import torch
from torch.utils.data import Dataset, DataLoader

CASE = sys.argv[1]
MARK = os.path.join(tempfile.gettempdir(), "n_n1_04_loads_%s.txt" % CASE)
CKPT = os.path.join(tempfile.gettempdir(), "n_n1_04_ckpt.pt")
if __name__ == "__main__" and os.path.exists(MARK):
    os.remove(MARK)


class InputHandle(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.zeros(2)


def Model():
    if not os.path.exists(CKPT):
        torch.save({"w": torch.ones(3)}, CKPT)
    stats = torch.load(CKPT)
    with open(MARK, "a") as f:
        f.write("%d\n" % os.getpid())
    return stats


if CASE == "import_heavy":
    model = Model()


def run():
    for _ in DataLoader(InputHandle(), batch_size=2, num_workers=2):
        pass


if __name__ == "__main__":
    if CASE == "lazy":
        model = Model()
    run()
    print("model loads:", len(open(MARK).read().split()))
