"""f_f3_01: definitions made in a notebook (Jupyter kernel) that reach workers.

The "kernel" is emulated by running the cell code with `python -c` (its __main__ cannot
be re-imported by a spawned child, as in Jupyter: `<module '__main__' (built-in)>`),
with the start method of this process (spawn under winspawn_lint.spawnrun, fork on Linux).
Usage: python run.py CASE      (CASE in CASES below; `all` runs every case)
"""
import multiprocessing
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

PRE = "import multiprocessing, sys\nmultiprocessing.set_start_method(sys.argv[1], force=True)\n"

CASES = {
    # jigsaw modelling.ipynb cell 4 -> bin/utils.parallelize_dataframe (Pool.map)
    "pool_fn": """
import nbutils
emb_keys = {'good': 1, 'bad': 1}
def unify_tokens(comment):
    return [w for w in comment if w in emb_keys]
def process_comment(part):
    return [unify_tokens(c) for c in part]
print('RESULT', nbutils.parallelize_dataframe([[['good', 'x']], [['bad', 'y']]], process_comment))
""",
    # safe twin: the function comes from a module file
    "module_fn": """
import nbutils
print('RESULT', nbutils.parallelize_dataframe([['a'], ['b']], nbutils.upper_words))
""",
    # safe: lambdas run by builtin map in the kernel; the pool gets a module function
    "parent_lambda": """
import nbutils
words = list(map(lambda r: r.replace('_', ' '), ['a_b', 'c_d']))
unnormalize = lambda x: x
print('RESULT', nbutils.parallelize_dataframe([[unnormalize(w) for w in words]], nbutils.upper_words))
""",
    # HandwritingOCR notebooks 1_b/2/3/4: notebook def transform -> ds.transform(fn) -> gluon DataLoader(num_workers)
    "mx_transform": """
import minigluon as gluon
def transform(data, label):
    return data * 2, label
ds = gluon.ArrayDataset(range(6), range(6)).transform(transform)
print('RESULT', [b for b in gluon.DataLoader(ds, 2, num_workers=2)])
""",
    # safe twin: same notebook transform, num_workers=0 (4_text_denoising val_data_ft)
    "mx_workers0": """
import minigluon as gluon
def transform(data, label):
    return data * 2, label
ds = gluon.ArrayDataset(range(6), range(6)).transform(transform)
print('RESULT', [b for b in gluon.DataLoader(ds, 2, num_workers=0)])
""",
    # 4_text_denoising NoisyTextDataset / 5_b FontDataset: a Dataset class defined in the notebook
    "mx_dataset_class": """
import minigluon as gluon
class FontDataset(gluon.Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return i
print('RESULT', [b for b in gluon.DataLoader(FontDataset().transform_first(float), 2, num_workers=2)])
""",
    # 4_text_denoising batchify_list inside Tuple(...) passed as batchify_fn
    "mx_batchify": """
import minigluon as gluon
def batchify_list(elem):
    return list(elem)
batchify = gluon.Tuple(gluon.Stack(), batchify_list)
ds = gluon.ArrayDataset(range(4), 'abcd')
print('RESULT', [b for b in gluon.DataLoader(ds, 2, batchify_fn=batchify, num_workers=2)])
""",
    # minerva task7 (HEAD): notebook converted to task7.py in a temp dir on sys.path and imported;
    # module-level Dataset class goes to torch DataLoader(num_workers)
    "imported_module_class": """
import importlib, os, sys, tempfile
import torch
from torch.utils.data import DataLoader
d = tempfile.mkdtemp()
with open(os.path.join(d, 'task7.py'), 'w') as f:
    f.write('''import torch
from torch.utils.data import Dataset
def solution():
    return DatasetLocalizer
class DatasetLocalizer(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return torch.tensor([i])
''')
sys.path.append(d)
cls = vars(importlib.import_module('task7'))['solution']()
print('RESULT', [b.tolist() for b in DataLoader(cls(4), batch_size=2, num_workers=2)])
""",
    # minerva task7 as reported in issues #79/#87: the class defined inside solution()
    "imported_module_local_class": """
import importlib, os, sys, tempfile
import torch
from torch.utils.data import DataLoader
d = tempfile.mkdtemp()
with open(os.path.join(d, 'task7old.py'), 'w') as f:
    f.write('''import torch
from torch.utils.data import Dataset
def solution():
    class DatasetLocalizer(Dataset):
        def __init__(self, n):
            self.n = n
        def __len__(self):
            return self.n
        def __getitem__(self, i):
            return torch.tensor([i])
    return DatasetLocalizer
''')
sys.path.append(d)
cls = vars(importlib.import_module('task7old'))['solution']()
print('RESULT', [b.tolist() for b in DataLoader(cls(4), batch_size=2, num_workers=2)])
""",
    # minerva task1: model class local to solution(), used only in the kernel/trainer process
    "local_class_parent": """
import torch
from torch.utils.data import DataLoader, TensorDataset
def solution(n):
    class PyTorchLocalizer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.l = torch.nn.Linear(1, n)
        def forward(self, x):
            return self.l(x)
    return PyTorchLocalizer()
model = solution(1)
outs = [model(x).shape for (x,) in DataLoader(TensorDataset(torch.ones(4, 1)), batch_size=2, num_workers=2)]
print('RESULT', outs, list(model.state_dict()))
""",
}

KEYS = ("Can't", "NameError", "RuntimeError", "PicklingError", "Timeout", "Error")


def run(case, method):
    env = dict(os.environ, PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        p = subprocess.run([sys.executable, "-c", PRE + CASES[case], method], cwd=HERE, env=env,
                           capture_output=True, text=True, timeout=55)
        out, code = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired as e:
        out, code = (e.stdout or b"").decode() + (e.stderr or b"").decode(), "timeout"
    ok = code == 0 and "RESULT" in out
    lines = [l.strip() for l in out.splitlines() if "File " not in l and "Warning" not in l]
    err = next((l for k in KEYS for l in lines if k in l), "")
    print(f"{case} [{method}]: {'OK' if ok else 'FAIL'} (exit {code}) {err[:160]}")
    if ok:
        print("  " + next(l for l in out.splitlines() if l.startswith("RESULT"))[:160])


if __name__ == "__main__":
    method = multiprocessing.get_start_method()
    todo = list(CASES) if sys.argv[1] == "all" else sys.argv[1:]
    for c in todo:
        run(c, method)
