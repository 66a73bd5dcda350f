# mimics earthspecies/library */02_Create_PyTorch_DataLoaders.ipynb: `class Dataset` (and ExampleProcessor) are defined
# in a notebook cell and iterated with DataLoader(num_workers=cpu_count()-1; here 2).
# A Jupyter kernel's __main__ has no __file__, so spawned workers cannot re-create notebook definitions.
# We emulate the kernel by dropping __main__.__file__/__spec__ and running the "cells" with exec in __main__.
#   hazard: classes defined in a cell (notebook)       safe: the same classes imported from a module file
import os, sys, tempfile, textwrap
import __main__

CELL = textwrap.dedent('''
    import numpy as np, torch
    class ExampleProcessor():
        def __init__(self, n):
            self.n = n
        def __call__(self, example):
            return example[:self.n]

    class Dataset(torch.utils.data.Dataset):
        def __init__(self, n=8):
            self.examples = np.random.rand(n, 10).astype(np.float32)
            self.example_processor = ExampleProcessor(5)
        def __getitem__(self, index):
            return self.example_processor(self.examples[index])
        def __len__(self):
            return self.examples.shape[0]
''')

LOOP = textwrap.dedent('''
    train_dl = torch.utils.data.DataLoader(dataset=Dataset(), batch_size=4, shuffle=True, num_workers=2)
    for batch in train_dl: pass
    print(CASE, "OK", tuple(batch.shape))
''')

if __name__ == "__main__":
    CASE = sys.argv[1]
    # make __main__ look like an interactive kernel
    for attr in ("__file__",):
        if hasattr(__main__, attr):
            delattr(__main__, attr)
    __main__.__spec__ = None
    ns = __main__.__dict__
    ns["CASE"] = CASE
    if CASE == "hazard":
        exec(CELL, ns)
    else:
        d = tempfile.mkdtemp()
        with open(os.path.join(d, "p4_nb_helpers.py"), "w") as f:
            f.write(CELL)
        sys.path.insert(0, d)
        os.environ["PYTHONPATH"] = d + os.pathsep + os.environ.get("PYTHONPATH", "")
        exec("import torch\nfrom p4_nb_helpers import Dataset, ExampleProcessor", ns)
    exec(LOOP, ns)
