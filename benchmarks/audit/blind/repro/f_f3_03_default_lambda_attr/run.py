"""f_f3_03: a lambda kept as an attribute of a dataset sent to DataLoader workers.
gaussian-ad-mvtec: default argument target_transform=lambda stored by the base class (3 modules);
VectorQuantizedVAE: transforms.Lambda(module-level function) vs a bare lambda in Compose.
Usage: python run.py CASE
CASE: default_lambda (hazard), workers0, module_fn_default (safe twins),
      tv_lambda_module_fn (safe), compose_lambda_workers0 (safe), compose_lambda_workers (hazard twin)."""
import sys

from torch.utils.data import DataLoader

import tvstub as transforms
from src.datasets.mvtecad import MVTecAD, MVTecADFixed
from src.gaussian.model import Mahalanobis


def shift(x):
    return x - 0.5


def main(case):
    if case == "default_lambda":
        loader = Mahalanobis(MVTecAD).train_dataloader()
    elif case == "workers0":
        loader = Mahalanobis(MVTecAD).test_dataloader()
    elif case == "module_fn_default":
        loader = Mahalanobis(MVTecADFixed).train_dataloader()
    elif case == "tv_lambda_module_fn":
        t = transforms.Compose([transforms.ToTensor(), transforms.Lambda(shift)])
        loader = DataLoader(transforms.CIFAR10Stub(transform=t), batch_size=2, num_workers=2)
    elif case in ("compose_lambda_workers0", "compose_lambda_workers"):
        t = transforms.Compose([transforms.ToTensor(), lambda x: x - 0.5])
        n = 0 if case == "compose_lambda_workers0" else 2
        loader = DataLoader(transforms.CIFAR10Stub(transform=t), batch_size=2, num_workers=n)
    print("RESULT", [[v.tolist() for v in b] for b in loader])


if __name__ == "__main__":
    main(sys.argv[1])
