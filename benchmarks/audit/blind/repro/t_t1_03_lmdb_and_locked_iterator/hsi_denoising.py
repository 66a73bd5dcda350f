"""Shape: S2TDM -- LMDBDataset opens lmdb env in __init__ (WSP301); SequentialSelect keeps a
LockedIterator (threading.Lock + generator) in __init__ (WSP301) and a list holding a lambda
(WSP204); both wrapped in ImageTransformDataset -> DataLoader(num_workers=1) (--threads default 1).
Cases: hazard_lmdb_init, safe_lmdb_lazy, hazard_locked_iter (SequentialSelect with named fns),
hazard_select_lambda (picklable selector holding a lambda defined under the guard), safe_select (picklable selector,
module-level fns), safe_partial_rebind (HSI2Tensor = partial(HSI2Tensor, ...) under the guard)."""
import sys
from functools import partial
from torch.utils.data import DataLoader
from hsi_utils import *

if __name__ == "__main__":
    case = sys.argv[1]
    path = make_db()
    HSI2Tensor = partial(HSI2Tensor, use_2dconv=True)  # rebinding as in the scripts
    if case == "hazard_lmdb_init":
        data, tr = LMDBDataset(path), Compose([add_noise, HSI2Tensor()])
    elif case == "safe_lmdb_lazy":
        data, tr = LazyLMDBDataset(path), Compose([add_noise, HSI2Tensor()])
    elif case == "hazard_locked_iter":
        data, tr = LazyLMDBDataset(path), Compose([SequentialSelect([identity, add_noise]), HSI2Tensor()])
    elif case == "hazard_select_lambda":
        data, tr = LazyLMDBDataset(path), Compose([RoundRobinSelect([lambda x: x, add_noise]), HSI2Tensor()])
    elif case == "safe_select":
        data, tr = LazyLMDBDataset(path), Compose([RoundRobinSelect([identity, add_noise]), HSI2Tensor()])
    elif case == "safe_partial_rebind":
        data, tr = LazyLMDBDataset(path), Compose([add_noise, HSI2Tensor()])
    else:
        raise SystemExit("unknown case")
    ds = ImageTransformDataset(data, tr, HSI2Tensor())
    loader = DataLoader(ds, batch_size=2, shuffle=True, num_workers=1)
    n = sum(1 for _ in loader)
    print("OK", case, "batches", n)
