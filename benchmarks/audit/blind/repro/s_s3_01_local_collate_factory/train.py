"""Cases: local_collate (REGNet utils.py:44), local_init (REGNet utils.py:42, collate fixed),
factory_collate (learnable-triangulation utils.py:8 via train.py:75), safe_module_level, safe_callable_class."""
import sys
import torch
import data_utils


def run(case):
    ds = data_utils.PointDataset()
    if case == "local_collate":
        loader = data_utils.get_dataloader(ds, 4, num_workers=2, local_collate=True, local_init=True)
    elif case == "local_init":
        loader = data_utils.get_dataloader(ds, 4, num_workers=2, local_collate=False, local_init=True)
    elif case == "factory_collate":
        loader = torch.utils.data.DataLoader(ds, batch_size=4, num_workers=2,
                                             collate_fn=data_utils.make_collate_fn(True),
                                             worker_init_fn=data_utils.module_worker_init_fn)
    elif case == "safe_module_level":
        loader = data_utils.get_dataloader(ds, 4, num_workers=2, local_collate=False, local_init=False)
    elif case == "safe_callable_class":
        loader = torch.utils.data.DataLoader(ds, batch_size=4, num_workers=2,
                                             collate_fn=data_utils.CollateFn(True),
                                             worker_init_fn=data_utils.module_worker_init_fn)
    else:
        raise SystemExit("unknown case " + case)
    n = 0
    for pcs, idx in loader:
        n += pcs.shape[0]
    print("OK", case, n)


if __name__ == "__main__":
    run(sys.argv[1])
