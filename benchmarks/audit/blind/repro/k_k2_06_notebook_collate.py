"""facenet-pytorch shape (examples/infer.ipynb, infer_cn.ipynb cell 10): a notebook cell defines
collate_fn and passes it to DataLoader(num_workers=workers), workers = 0 on Windows ('nt') and 4
elsewhere, so on macOS (spawn) the worker cannot find __main__.collate_fn.
Runs a real notebook in a Jupyter kernel (nbclient) with the start method forced:
    python k_k2_06_notebook_collate.py CASE [spawn|fork]
cases: notebook_fn (collate_fn defined in a cell), safe (a library collate function, as finetune.ipynb's
training.collate_pil)."""
import sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

case = sys.argv[1]
method = sys.argv[2] if len(sys.argv) > 2 else "spawn"
collate = "collate_fn" if case == "notebook_fn" else "default_collate"
cells = [
    f"import multiprocessing as mp\nmp.set_start_method('{method}', force=True)",
    "import os, torch\nfrom torch.utils.data import DataLoader, TensorDataset, default_collate\n"
    "workers = 0 if os.name == 'nt' else 2",
    "def collate_fn(x):\n    return x[0]\n\n"
    "dataset = TensorDataset(torch.arange(6.0), torch.arange(6))\n"
    f"loader = DataLoader(dataset, collate_fn={collate}, num_workers=workers)",
    "out = [x for x, y in loader]\nprint('OK', len(out))",
]
nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
try:
    NotebookClient(nb, timeout=50, kernel_name="python3").execute()
    print([o.get("text", "").strip() for o in nb.cells[-1].outputs])
except CellExecutionError as e:
    msg = str(e).strip().splitlines()
    print("FAILED:", [l for l in msg if "Error" in l][-1:] or msg[-1:])
