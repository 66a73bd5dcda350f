"""q3 shape 06 (simonjisu/Text2SQL): DataLoader(collate_fn=self._collate_fn) -- a bound method of the
LightningModule -- ships the whole model to each worker (num_workers 4 except on Windows), with the DBEngine
(records.Database) it keeps and its lambda attributes; and the notebook versions.
Cases (script, main guard present as in main.py -> trainer.train -> trainer.fit):
  script_as_repo   : model keeps DBEngine(records.Database) and lambdas            -> WSP301 (engine) first
  script_lazy_db   : engine opened lazily, lambdas still stored (self.totensor)     -> WSP204
  script_fixed     : no engine, no lambdas                                           (safe twin)
  parent_lambdas   : configure_optimizers filter(lambda ...) + set_sharing_strategy at import (safe)
Cases (notebook, emulated: __main__ has no __file__ as in a Jupyter kernel):
  nb_lambda_collate: DataLoader(collate_fn=lambda x: x, num_workers=2)              -> WSP201
  nb_class         : class defined in the notebook, picklable state, bound-method collate_fn -> WSP206
  nb_module_class  : the same class imported from a module                            (safe twin)
"""
import os
import sys
import torch

torch.multiprocessing.set_sharing_strategy("file_system")   # like src/trainer.py:6 (not a start method)


def run(loader):
    return sum(1 for _ in loader)


def main(case):
    from model import Text2SQL
    if case == "script_as_repo":
        n = run(Text2SQL().train_dataloader())
    elif case == "script_lazy_db":
        n = run(Text2SQL(lazy_db=True).train_dataloader())
    elif case == "script_fixed":
        n = run(Text2SQL(lazy_db=True, lambdas=False).train_dataloader())
    elif case == "parent_lambdas":
        m = Text2SQL(lazy_db=True, lambdas=False)
        opt = m.configure_optimizers()
        n = run(m.train_dataloader())
    elif case.startswith("nb_"):
        import __main__
        del __main__.__file__        # notebook kernel: spawn does not re-run __main__ in the workers
        num_workers = 0 if os.name == "nt" else 2
        data = [{"q": i} for i in range(8)]
        if case == "nb_lambda_collate":
            # the notebook cell runs at top level of __main__: a module-level lambda of the notebook
            exec("import torch\nloader = torch.utils.data.DataLoader(data, batch_size=2, shuffle=True, "
                 "num_workers=num_workers, collate_fn=lambda x: x)", __main__.__dict__,
                 {"data": data, "num_workers": num_workers})
            loader = __main__.__dict__.get("loader") or _nb_loader(data, num_workers)
        elif case == "nb_class":
            class_ns = {}
            exec(NB_CLASS_SRC, __main__.__dict__)          # define the class in __main__, as a notebook cell does
            m = __main__.NBText2SQL()
            loader = m.train_dataloader()
        elif case == "nb_module_class":
            m = Text2SQL(lazy_db=True, lambdas=False)
            loader = m.train_dataloader()
        n = run(loader)
    else:
        raise SystemExit("unknown case " + case)
    print("OK", case, n)


def _nb_loader(data, num_workers):
    import __main__
    ns = __main__.__dict__
    ns["data"], ns["num_workers"] = data, num_workers
    exec("import torch\nloader = torch.utils.data.DataLoader(data, batch_size=2, shuffle=True, "
         "num_workers=num_workers, collate_fn=lambda x: x)", ns)
    return ns["loader"]


NB_CLASS_SRC = '''
import os, torch
class NBText2SQL(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
    def _collate_fn(self, x):
        return x
    def train_dataloader(self):
        data = [{"q": i} for i in range(8)]
        return torch.utils.data.DataLoader(data, batch_size=2, num_workers=0 if os.name == "nt" else 2,
                                           collate_fn=self._collate_fn)
'''

if __name__ == "__main__":
    main(sys.argv[1])
