# Shape: SfmLearner-Pytorch data/prepare_train_data.py: main() (called under the main guard) binds
# `global data_loader`, and dump_example (module-level, run by a process pool with
# --num-threads default 4) reads that global -> WSP107 (NameError in spawned workers).
# Cases: hazard (global bound in main), safe (loader passed as an argument).
import argparse
import sys
from concurrent.futures import ProcessPoolExecutor

parser = argparse.ArgumentParser()
parser.add_argument("case")
parser.add_argument("--num-threads", type=int, default=4)
args = parser.parse_args()   # top-level, as in the repository (re-run in each spawned worker)


class KittiRawLoader:
    def __init__(self):
        self.scenes = ["s0", "s1", "s2", "s3"]

    def collect_scenes(self, scene):
        return [scene + "_02", scene + "_03"]


def dump_example(args, scene):
    scene_list = data_loader.collect_scenes(scene)
    return len(scene_list)


def dump_example_arg(loader, scene):
    return len(loader.collect_scenes(scene))


def main():
    global data_loader
    data_loader = KittiRawLoader()
    n = len(data_loader.scenes)
    with ProcessPoolExecutor(max_workers=args.num_threads) as pool:
        if args.case == "hazard":
            res = list(pool.map(dump_example, [args] * n, data_loader.scenes))
        else:
            res = list(pool.map(dump_example_arg, [data_loader] * n, data_loader.scenes))
    print(res)
    print("OK", args.case)


if __name__ == '__main__':
    main()
