"""Shape: hyper-parameter search launcher (knowledge-distillation-pytorch
search_hyperparams.py) and a parent-only map_location lambda (utils.py).
Cases:
  safe_check_call   - launches each trial with subprocess.check_call (new
                      interpreter, nothing pickled): runs under spawn.
  safe_map_location - torch.load(..., map_location=lambda s, l: s) in the
                      parent only; the lambda never reaches a worker.
  hazard_pool_local - the same launcher written with multiprocessing.Pool and
                      a local function: fails under spawn (pickling)."""
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import torch

CASE = sys.argv[1] if len(sys.argv) > 1 else "safe_check_call"


def launch_training_job(lr):
    cmd = f'{sys.executable} -c "print(\'trial lr={lr}\')"'
    subprocess.check_call(cmd, shell=True)


def main():
    lrs = [0.1, 0.01]
    if CASE == "safe_check_call":
        for lr in lrs:
            launch_training_job(lr)
    elif CASE == "safe_map_location":
        p = os.path.join(tempfile.gettempdir(), "l_l4_04.pt")
        torch.save({"state_dict": torch.nn.Linear(2, 1).state_dict()}, p)
        ck = torch.load(p, map_location=lambda storage, loc: storage)
        print("keys", list(ck["state_dict"]))
    elif CASE == "hazard_pool_local":
        def job(lr):
            return lr * 2
        with mp.Pool(2) as pool:
            print(pool.map(job, lrs))
    print("OK")


if __name__ == "__main__":
    main()
