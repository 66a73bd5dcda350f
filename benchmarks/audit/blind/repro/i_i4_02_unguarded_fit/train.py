"""Usage: train.py CASE
  unguarded      : module-level parse/build + fit() that iterates DataLoader(num_workers=2), no main guard
                   (Attention_ocr train.py:57, mongolian train.py:407-408, crnn train.py:190-191)
  guarded        : same under if __name__ == "__main__" (safe twin; mongolian eval.py, RTVC *_train.py)
  import_load    : module-level torch.load of weights at import, but no worker is ever started (crnn demo.py:18,
                   PyTorch_Speaker_Verification dvector_create.py:81): runs once, safe
"""
import os
import sys
import tempfile
import torch
from torch.utils.data import DataLoader, TensorDataset
from engine import fit

case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
print("import of", __name__, "pid", os.getpid(), flush=True)


def build():
    return DataLoader(TensorDataset(torch.arange(8.0)), batch_size=2, num_workers=2)


if case == "unguarded":
    loader = build()
    print("OK unguarded batches", fit(loader))
elif case == "import_load":
    p = os.path.join(tempfile.gettempdir(), "i_i4_02_w.pt")
    torch.save({"w": torch.ones(2)}, p)
    state = torch.load(p)
    print("OK import_load", float(state["w"].sum()))

if __name__ == "__main__" and case == "guarded":
    print("OK guarded batches", fit(build()))
