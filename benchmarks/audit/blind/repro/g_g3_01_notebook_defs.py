"""g3 shape 01: definitions made in a notebook kernel reaching workers.

A Jupyter kernel's __main__ cannot be re-imported by a spawned worker.  We mimic a
notebook by exec-ing the "cell" source into __main__ only in the parent (under the
guard): a spawned child re-imports this file as __mp_main__, which lacks the cell's
definitions (exactly "Can't get attribute 'X' on <module '__main__' (built-in)>").

cases:
  dataset_class      class Dataset defined in a cell -> DataLoader(num_workers=2)   (hazard, WSP206)
  pool_function      def worker in a cell -> multiprocessing.Pool(2).imap          (hazard, WSP206)
  target_transform_fn  def target_transform in a cell kept by an importable dataset
                     -> DataLoader(num_workers=2)                                   (hazard, WSP206)
  target_transform_importable  same with an importable function                     (safe)
  mp_pool_dill       def task in a cell reading cell globals (sleep) -> multiprocess.Pool:
                     dill pickles the function by value but its globals as a reference
                     to __main__, which the spawned worker lacks: NameError       (hazard, WSP206)
  mp_pool_dill_selfcontained  same, imports inside the function                     (safe)
  model_class_only   nn.Module class defined in a cell, used only in the kernel;
                     loader gets an importable TensorDataset                        (safe)
  importable_dataset class defined in a cell (a DataModule-like holder) keeps an
                     importable dataset; only that dataset goes to the workers      (safe)
  dill_map_globals   function defined in a cell reading cell globals (re, max_length,
                     rindex) -> datasets.map(num_proc=2): NameError under spawn    (hazard, WSP206)
  dill_map_pure      a lambda using no notebook globals -> datasets.map(num_proc=2) (safe)
"""
import sys, textwrap
import __main__

CELLS = {
"dataset_class": '''
import torch
from torch.utils.data import Dataset, DataLoader
class SortDataset(Dataset):
    def __init__(self, n):
        self.data = [torch.randperm(5) for _ in range(n)]
    def __len__(self): return len(self.data)
    def __getitem__(self, i): return self.data[i]
loader = DataLoader(SortDataset(8), batch_size=2, num_workers=2)
out = [b.shape for b in loader]
print("OK", len(out))
''',
"pool_function": '''
from multiprocessing import Pool
def worker(x):
    return x * (x + 3)
p = Pool(2)
outputs = [r for r in p.imap(worker, range(10))]
p.close(); p.join()
print("OK", outputs)
''',
"target_transform_fn": '''
import torch
from torch.utils.data import DataLoader
from g_g3_01_lib import VOCLike          # importable library dataset
def target_transform(t):                # defined in a cell, kept by the dataset
    return 0
dataset = VOCLike(8, target_transform=target_transform)
loader = DataLoader(dataset, batch_size=2, shuffle=True, drop_last=True, num_workers=2)
out = [b[1].tolist() for b in loader]
print("OK", out)
''',
"target_transform_importable": '''
import torch
from torch.utils.data import DataLoader
from g_g3_01_lib import VOCLike, zero_target
dataset = VOCLike(8, target_transform=zero_target)
loader = DataLoader(dataset, batch_size=2, shuffle=True, drop_last=True, num_workers=2)
out = [b[1].tolist() for b in loader]
print("OK", out)
''',
"mp_pool_dill_selfcontained": '''
from multiprocess import Pool
def task(name):
    from time import sleep              # no notebook globals: everything imported inside
    sleep(0.1)
    return name + " finished"
with Pool(3) as p:
    print("OK", p.map(task, ["First task", "Second task"]))
''',
"dill_map_pure": '''
import datasets
ds = datasets.Dataset.from_dict({"question": ["  a", " b", "c ", "d"]})
ds2 = ds.map(lambda ex: {"question": [q.lstrip() for q in ex["question"]]}, batched=True, num_proc=2)
print("OK", ds2["question"])
''',
"mp_pool_dill": '''
from multiprocess import Pool           # the dill-based fork used by python-tutorial 14_threads.ipynb
from time import sleep
def task(name):
    sleep(0.1)
    return name + " finished"
def two_tasks():
    with Pool(3) as p:
        return p.map(task, ["First task", "Second task"])
print("OK", two_tasks())
''',
"model_class_only": '''
import torch
from torch import nn
from torch.utils.data import TensorDataset, DataLoader
class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(4, 2)
    def forward(self, x): return self.fc(x)
net = SiameseNetwork()
loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=2, num_workers=2)
out = [net(b[0]).shape for b in loader]
print("OK", len(out))
''',
"importable_dataset": '''
import torch
from torch.utils.data import TensorDataset, DataLoader, random_split
class MNISTModule:
    def __init__(self):
        full = TensorDataset(torch.randn(10, 3), torch.arange(10))
        self.train_data, self.val_data = random_split(full, [8, 2], generator=torch.Generator().manual_seed(0))
    def train_dataloader(self):
        return DataLoader(self.train_data, batch_size=2, shuffle=True, num_workers=2)
dm = MNISTModule()
out = [b[0].shape for b in dm.train_dataloader()]
print("OK", len(out))
''',
"dill_map_globals": '''
import datasets
import re
ds = datasets.Dataset.from_dict({"question": ["  a", " b", "c ", "d"]})
max_length = 3                          # notebook globals read by the function
def rindex(lst, value):
    return len(lst) - 1 - lst[::-1].index(value)
def prepare_dataset(examples):
    examples["question"] = [re.sub(r"^\\s+", "", q)[:max_length] for q in examples["question"]]
    examples["r"] = [rindex([1, 0, 1], 1) for _ in examples["question"]]
    return examples
ds2 = ds.map(prepare_dataset, batched=True, num_proc=2)
print("OK", ds2["question"])
''',
}

if __name__ == "__main__":
    case = sys.argv[1]
    # run the "cell" in the kernel namespace (__main__), as Jupyter does
    exec(compile(textwrap.dedent(CELLS[case]), "<cell>", "exec"), __main__.__dict__)
