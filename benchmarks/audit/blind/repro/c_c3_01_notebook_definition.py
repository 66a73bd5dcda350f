"""c3 shape 01: a function/class defined in a notebook cell reaches a worker (WSP206).

A Jupyter kernel's __main__ has no __file__, so a spawned child cannot re-import it: anything
pickled by reference to __main__ fails with "Can't get attribute 'X' on <module '__main__' (built-in)>".
We mimic the kernel by running the "cells" with `python -c` (its __main__ has no __file__ either),
with the start method this outer script runs under (spawn under winspawn_lint.spawnrun, fork under plain
python on Linux).

Mimics: DeepReinforcementLearningInAction Chapter 5 (Pool.map(square), Process(target=worker,
args=(ActorCritic instance,...)), Errata Chapter 5 (same, with `if __name__ == '__main__':` added),
cj-mills yolox notebooks (HagridDataset defined in a cell + DataLoader(num_workers>0)); safe twins:
the yolox Windows notebook (Dataset and collate imported from windows_utils.py), num_workers=0.

usage: python c_c3_01_notebook_definition.py CASE
cases: pool_func, guarded_pool_func, process_class, class_arg_only, dataloader_dataset,
       notebook_lambda_collate   (hazards)
       imported_module, num_workers0                                      (safe)
"""
import multiprocessing
import os
import subprocess
import sys
import tempfile
import textwrap

PRELUDE = "import multiprocessing as mp\nmp.set_start_method({method!r}, force=True)\n"

CELLS = {
    # Ch5_book.ipynb cell 3
    "pool_func": """
        import numpy as np
        def square(x):
            return np.square(x)
        x = np.arange(64)
        pool = mp.Pool(2)
        print(pool.map(square, [x[8*i:8*i+8] for i in range(8)]))
        pool.close(); pool.join()
    """,
    # Errata/Chapter 5.ipynb cells 3+5: the added guard changes nothing in a kernel
    "guarded_pool_func": """
        import numpy as np
        def square(x):
            return np.square(x)
        x = np.arange(64)
        if __name__ == '__main__':
            with mp.Pool(2) as pool:
                print(pool.map(square, [x[8*i:8*i+8] for i in range(8)]))
    """,
    # Ch5_book.ipynb cells 7/9/15: class ActorCritic + def worker, Process(target=worker, args=(model,))
    "process_class": """
        import torch
        from torch import nn
        class ActorCritic(nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = nn.Linear(4, 2)
        def worker(t, model, counter):
            with counter.get_lock():
                counter.value += 1
        MasterNode = ActorCritic()
        MasterNode.share_memory()
        counter = mp.Value('i', 0)
        procs = [mp.Process(target=worker, args=(i, MasterNode, counter)) for i in range(2)]
        for p in procs: p.start()
        for p in procs: p.join()
        print('counter', counter.value, 'exitcodes', [p.exitcode for p in procs])
        assert counter.value == 2, 'workers failed'
    """,
    # Ch5_book.ipynb cell 7 alone: the worker function is importable, the model class is not
    "class_arg_only": """
        import sys
        sys.path.insert(0, {moddir!r})
        import torch
        from torch import nn
        from windows_utils_mock import count_worker
        class ActorCritic(nn.Module):
            def __init__(self):
                super().__init__()
                self.l1 = nn.Linear(4, 2)
        MasterNode = ActorCritic()
        MasterNode.share_memory()
        counter = mp.Value('i', 0)
        procs = [mp.Process(target=count_worker, args=(i, MasterNode, counter)) for i in range(2)]
        for p in procs: p.start()
        for p in procs: p.join()
        print('counter', counter.value, 'exitcodes', [p.exitcode for p in procs])
        assert counter.value == 2, 'workers failed'
    """,
    # yolox training notebook cells 63/74: Dataset class + lambda collate in the notebook
    "dataloader_dataset": """
        import torch
        from torch.utils.data import Dataset, DataLoader
        class HagridDataset(Dataset):
            def __init__(self, n): self.n = n
            def __len__(self): return self.n
            def __getitem__(self, i): return torch.tensor([i]), {'labels': i}
        def tuple_batch(batch):
            return tuple(zip(*batch))
        dl = DataLoader(HagridDataset(8), batch_size=4, num_workers=2, collate_fn=tuple_batch)
        print(len(list(dl)), 'batches')
    """,
    # yolox training notebook cell 74 with an importable Dataset: only the collate lambda is left
    "notebook_lambda_collate": """
        import sys
        sys.path.insert(0, {moddir!r})
        from torch.utils.data import DataLoader
        from windows_utils_mock import HagridDataset
        params = {'batch_size': 4, 'num_workers': 2, 'collate_fn': lambda batch: tuple(zip(*batch))}
        dl = DataLoader(HagridDataset(8), **params, shuffle=True)
        print(len(list(dl)), 'batches')
    """,
    # yolox Windows notebook: classes come from windows_utils.py next to the notebook
    "imported_module": """
        import sys
        sys.path.insert(0, {moddir!r})
        from torch.utils.data import DataLoader
        from windows_utils_mock import HagridDataset, tuple_batch, square
        dl = DataLoader(HagridDataset(8), batch_size=4, num_workers=2, collate_fn=tuple_batch)
        print(len(list(dl)), 'batches')
        with mp.Pool(2) as pool:
            print(pool.map(square, [1, 2, 3]))
    """,
    # Chapter 6 MNIST Genetic Algorithm.ipynb cell 8: DataLoader without num_workers
    "num_workers0": """
        import torch
        from torch.utils.data import Dataset, DataLoader
        class Set(Dataset):
            def __len__(self): return 8
            def __getitem__(self, i): return torch.tensor([i])
        dl = DataLoader(Set(), batch_size=4, shuffle=True)
        print(len(list(dl)), 'batches')
    """,
}

MODULE = '''
import numpy as np
import torch
from torch.utils.data import Dataset
class HagridDataset(Dataset):
    def __init__(self, n): self.n = n
    def __len__(self): return self.n
    def __getitem__(self, i): return torch.tensor([i]), {"labels": i}
def tuple_batch(batch):
    return tuple(zip(*batch))
def square(x):
    return np.square(x)
def count_worker(t, model, counter):
    with counter.get_lock():
        counter.value += 1
'''


def main():
    case = sys.argv[1]
    method = multiprocessing.get_start_method()
    with tempfile.TemporaryDirectory() as moddir:
        with open(os.path.join(moddir, "windows_utils_mock.py"), "w") as f:
            f.write(MODULE)
        code = PRELUDE.format(method=method) + textwrap.dedent(CELLS[case]).replace("{moddir!r}", repr(moddir))
        print(f"[{case}] kernel-like __main__ (python -c), start method {method}")
        try:
            r = subprocess.run([sys.executable, "-c", code], text=True, capture_output=True, timeout=20)
        except subprocess.TimeoutExpired as e:
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            print(err[-800:])
            print("RESULT: HANG (timeout)")
            sys.exit(3)
    out = r.stdout + r.stderr
    for line in sorted(set(l for l in out.splitlines() if "Can't get attribute" in l or "Can't pickle" in l)):
        print("  >", line.strip())
    print(out[-1500:])
    if r.returncode == 0 and "Can't get attribute" not in out and "Error" not in out:
        print("RESULT: OK")
    else:
        print("RESULT: FAIL rc=%d" % r.returncode)
        sys.exit(1)


if __name__ == "__main__":
    main()
