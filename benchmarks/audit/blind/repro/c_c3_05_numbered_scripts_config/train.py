"""c3 shape 05 (three modules): deepslide numbered scripts. `3_train.py` is a script with no main guard:
`import config` (argparse + statistics at import) then a top-level call that iterates a DataLoader with
config.args.num_workers workers (WSP101 at the script's top level; WSP101 at config.py's import-time
compute_stats; WSP203 for the local Dataset class inside compute_stats).

usage: python train.py CASE
cases: local_class            hazard: compute_stats' local MyDataset is pickled for its worker (WSP203)
       config_import_workers  hazard: config.py starts DataLoader workers at import time; every spawned
                              worker re-imports the main script -> config -> starts workers again (WSP101)
       unguarded_train        hazard: the script's own top-level train_resnet(...) call (WSP101)
       unguarded_processes    hazard: top-level produce_patches(...) starting multiprocessing.Process workers (WSP101)
       guarded_train          safe: the same call under `if __name__ == '__main__':`
       guarded_processes      safe: utils_processing-style Process(target=module fn, args=(partial(...),...))
"""
import sys

import config
from utils_model import produce_patches, train_resnet

case = config.args.case
if case in ("local_class", "config_import_workers"):
    print(f"[{case}] stats at import: {config.path_mean}")
    if __name__ == "__main__":
        print("RESULT: OK")
elif case == "unguarded_processes":  # 2_process_patches.py L12: gen_train_patches -> produce_patches
    print(f"[{case}] {produce_patches(config.args.num_workers)}")
    print("RESULT: OK")
elif case == "unguarded_train":
    n = train_resnet(num_workers=config.args.num_workers, path_mean=config.path_mean)
    print(f"[{case}] {n} batches")
    print("RESULT: OK")

if __name__ == "__main__":
    if case == "guarded_train":
        n = train_resnet(num_workers=config.args.num_workers, path_mean=config.path_mean)
        print(f"[{case}] {n} batches")
        print("RESULT: OK")
    elif case == "guarded_processes":
        print(f"[{case}] {produce_patches(config.args.num_workers)}")
        print("RESULT: OK")
