"""d_d2_01: a script iterates loaders built by a project module.
cases:
  unguarded         top-level loop over a loader with num_workers=1 (IIR test.py, Siam train/eval/visualization.py,
                    BERT-CRF main.py)                         -> WSP101 hazard
  unguarded_method  top-level m.fit() whose method builds/iterates DataLoader(num_workers=2) (GaitSet train.py/test.py)
                                                              -> WSP101 hazard
  guarded           same loop under `if __name__ == "__main__":` (IIR train.py)  -> safe
  workers0          unguarded loop, num_workers=0 (pytorch-chatbot train.py)      -> safe
  stored_function   guarded; the dataset keeps a module-level function (Siam CDDloader.loader) -> safe
  lazy_lmdb         guarded; lmdb env opened lazily in __getitem__ (IIR LQGTDataset) -> safe
  model_lambda      guarded; `lambda x: x` transform kept on the model and applied in the parent to each batch;
                    the loader's workers get only the dataset (OpenGait get_transform / BaseModel) -> safe
"""
import os
import sys

import helpers

case = sys.argv[1]
print(f"[{os.getpid()}] import of {__name__} (case={case})", flush=True)


def loop(ds, num_workers):
    loader = helpers.create_dataloader(ds, num_workers)
    total = 0.0
    for b in loader:
        total += float(b.sum())
    print("OK total", total, flush=True)


if case == "unguarded":
    loop(helpers.ToyDataset(), 1)
elif case == "unguarded_method":
    m = helpers.Model(helpers.ToyDataset(), num_workers=2)
    print("OK total", m.fit(), flush=True)
elif case == "workers0":
    loop(helpers.ToyDataset(), 0)
elif __name__ == "__main__":
    if case == "guarded" or case == "stored_function":
        loop(helpers.ToyDataset(), 1)
    elif case == "model_lambda":
        net = helpers.Model(helpers.ToyDataset(), num_workers=2)
        net.trfs = helpers.identity_transform()
        loader = helpers.create_dataloader(helpers.ToyDataset(), 2)
        print("OK total", sum(float(net.trfs(b).sum()) for b in loader), flush=True)
    elif case == "lazy_lmdb":
        loop(helpers.LazyLmdbDataset(helpers.make_lmdb()), 2)
    else:
        raise SystemExit("unknown case")
