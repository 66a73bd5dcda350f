"""cases:
  process_lambda        lambda in Process args, preprocessing called from the dataset (hazard, WSP201, 3 modules)
  process_partial       the same with functools.partial                          (safe)
  dataset_lambda_attr   dataset keeps self.energy_regression = lambda, DataLoader(num_workers=2) (hazard, WSP204)
  dataset_function_attr the same with a module-level function                    (safe)
  collate_lambda_main   collate = lambda inside main() passed to DataLoader(num_workers=2) (hazard, WSP201)
  run_threaded_module   module-level target through a Process subclass; progress lambda used only in the parent (safe)
"""
import sys

import torch
from torch.utils.data import DataLoader

from qm9_data import QM9gen
from utility_functions import check_valency, run_threaded


def collate_atoms(batch, n_bins=3):
    return torch.stack([torch.as_tensor(b) for b in batch]) * n_bins


def main(case):
    if case in ("process_lambda", "process_partial"):
        QM9gen(preprocess="lambda" if case == "process_lambda" else "partial")
        return
    if case == "run_threaded_module":
        prog_str = lambda x: f"Checking {x}"
        print(prog_str("valence"))
        print(run_threaded(check_valency, list(range(6)), {"prog_str": prog_str("valence")}))
        return
    data = QM9gen(attr_style="function" if case == "dataset_function_attr" else "lambda")
    if case == "collate_lambda_main":
        data = QM9gen(attr_style="function")
        collate = lambda x: collate_atoms(x, n_bins=4)
    else:
        collate = collate_atoms
    loader = DataLoader(data, batch_size=2, num_workers=2, collate_fn=collate)
    print("sum", float(sum(b.sum() for b in loader)))


if __name__ == "__main__":
    main(sys.argv[1])
