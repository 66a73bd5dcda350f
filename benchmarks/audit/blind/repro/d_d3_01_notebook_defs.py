"""Notebook-defined objects reaching DataLoader workers (WSP206 / WSP202 in a notebook), with safe twins.

A Jupyter kernel's __main__ has no file, so spawned workers cannot re-import it: anything pickled by
reference to __main__ fails with "Can't get attribute ... on <module '__main__' (built-in)>".
We emulate a kernel by executing the "cell" source with exec() in __main__ after hiding __main__.__file__.
Usage: python d_d3_01_notebook_defs.py CASE   (also under winspawn_lint.spawnrun --start-method spawn)
"""
import sys, textwrap, types

COMMON = """
import torch, numpy as np
from torch.utils import data
"""

CASES = {
# uvadlc tutorial6 cell 69 / Videoclassification cell 6 / Meta_Learning cell 12 / PytorchDigitalPathology old notebooks
"dataset_class": """
class SetDataset(data.Dataset):
    def __init__(self, n): self.x = torch.arange(n).float()
    def __len__(self): return len(self.x)
    def __getitem__(self, i): return self.x[i]
loader = data.DataLoader(SetDataset(8), batch_size=4, num_workers=2)
print(sum(b.sum().item() for b in loader))
""",
# uvadlc tutorial11/12 cell 8: def discretize in a Compose kept by the dataset; SimCLR ContrastiveTransformations
"transform_fn": """
def discretize(sample):
    return (sample * 255).to(torch.int32)
import torchvision_like_lib as lib
ds = lib.TransformedDataset(torch.rand(8), transform=lib.Compose([lib.identity, discretize]))
loader = data.DataLoader(ds, batch_size=4, num_workers=2)
print(sum(b.sum().item() for b in loader))
""",
# JAX/tutorial9 cell 9: numpy_collate defined in the notebook passed as collate_fn with workers
"collate_fn": """
def numpy_collate(batch):
    return np.stack([np.asarray(b) for b in batch])
import torchvision_like_lib as lib
loader = data.DataLoader(lib.TransformedDataset(torch.rand(8)), batch_size=4, num_workers=2, collate_fn=numpy_collate)
print(sum(b.sum() for b in loader))
""",
# Meta_Learning cell 56: collate_fn closure returned by a method of a notebook class
"local_collate": """
class TaskBatchSampler:
    def __init__(self, k): self.k = k
    def get_collate_fn(self):
        def collate_fn(items):
            return torch.stack(items).chunk(self.k)
        return collate_fn
import torchvision_like_lib as lib
s = TaskBatchSampler(2)
loader = data.DataLoader(lib.TransformedDataset(torch.rand(8)), batch_size=4, num_workers=2, collate_fn=s.get_collate_fn())
print(len(list(loader)))
""",
# safe: JAX GAN cell 7 / tutorial6 cell 36 / mlhub cell 12: notebook defs but num_workers=0
"workers0": """
def numpy_collate(batch):
    return np.stack([np.asarray(b) for b in batch])
class SetDataset(data.Dataset):
    def __init__(self, n): self.x = torch.arange(n).float()
    def __len__(self): return len(self.x)
    def __getitem__(self, i): return self.x[i]
loader = data.DataLoader(SetDataset(8), batch_size=4, num_workers=0, collate_fn=numpy_collate)
print(sum(b.sum() for b in loader))
""",
# safe: JAX tutorial6 cell 70: lambda collate_fn, no workers
"lambda_noworkers": """
import torchvision_like_lib as lib
loader = data.DataLoader(lib.TransformedDataset(torch.rand(8)), batch_size=4, collate_fn=lambda batch: np.stack([np.asarray(b) for b in batch]))
print(sum(b.sum() for b in loader))
""",
# safe: Meta_Learning cell 22: notebook-defined batch_sampler with workers (sampler stays in the parent)
"sampler": """
class FewShotBatchSampler:
    def __init__(self, n, k): self.n, self.k = n, k
    def __iter__(self):
        for i in range(0, self.n, self.k): yield list(range(i, i + self.k))
    def __len__(self): return self.n // self.k
import torchvision_like_lib as lib
loader = data.DataLoader(lib.TransformedDataset(torch.rand(8)), batch_sampler=FewShotBatchSampler(8, 4), num_workers=2)
print(sum(b.sum().item() for b in loader))
""",
# safe: library dataset + library transforms with workers (uvadlc tutorial6 cell 63, SimCLR cell 32)
"library": """
import torchvision_like_lib as lib
loader = data.DataLoader(lib.TransformedDataset(torch.rand(8), transform=lib.Compose([lib.identity])), batch_size=4, num_workers=2)
print(sum(b.sum().item() for b in loader))
""",
# fewshotlocal Train.ipynb cell 3 / Evaluate.ipynb cell 3: ImageFolder(loader=lambda x: load_transform(...)),
# DataLoader(num_workers=workers) iterated by helpful_files/training.py train()
"lambda_loader_helper": """
from helpful_training import load_transform, train
import torchvision_like_lib as lib
scale = 2.0
ds = lib.ImageFolderLike(list(range(8)), loader=lambda x: load_transform(x, scale))
loader = data.DataLoader(ds, batch_size=4, num_workers=2)
print(train(loader))
""",
# safe twin: the fix (functools.partial of the module function) plus a model keeping lambdas in the kernel only
"partial_loader_model_lambda": """
import functools
from helpful_training import load_transform, train, Network
import torchvision_like_lib as lib
ds = lib.ImageFolderLike(list(range(8)), loader=functools.partial(load_transform, scale=2.0))
loader = data.DataLoader(ds, batch_size=4, num_workers=2)
net = Network(True)
sched = [lambda e: 1 / (2 ** e)]
print(train(loader), net(torch.ones(1)).item(), sched[0](1))
""",

}

if __name__ == "__main__":
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    case = sys.argv[1]
    import multiprocessing as mp
    if os.environ.get("FORCE_SPAWN"):
        mp.set_start_method("spawn", force=True)
    main = sys.modules["__main__"]
    # emulate a kernel: __main__ without a file
    for attr in ("__file__",):
        if hasattr(main, attr):
            delattr(main, attr)
    main.__spec__ = None
    src = textwrap.dedent(COMMON + CASES[case])
    exec(compile(src, f"<cell {case}>", "exec"), main.__dict__)
    print("OK", case)
