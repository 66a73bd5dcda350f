"""Mimics main.py. Cases:
  unguarded  whole script at module level: initialize_dataloader() at import (dataset built in each
             spawned worker too) and the cycle loop calling training.self_supervised_training
             -> spawn: bootstrapping RuntimeError
  guarded    the same under if __name__ == '__main__' (with the SimCLR two-crop wrapper) -> ok
"""
import sys
from dataloader import initialize_dataloader
from training import self_supervised_training
from sim_clr_transforms import SimCLR

case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"


def run():
    loader, ds = initialize_dataloader(2)
    ds.update_self_supervised_augmentations(SimCLR(power_list=[1.0, 2.0]))
    for cycle in range(1):
        n = self_supervised_training(loader)
    print("OK", case, n)


if case == "unguarded":
    loader, ds = initialize_dataloader(2)                                   # import-time data build
    ds.update_self_supervised_augmentations(SimCLR(power_list=[1.0, 2.0]))
    for cycle in range(1):                                                  # module-level loop
        n = self_supervised_training(loader)
    print("OK", case, n)

if __name__ == "__main__" and case == "guarded":
    run()
