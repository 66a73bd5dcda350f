"""d_d2_04: a Pool worker function reads a module-level `args` that only the parent binds.
cases:
  guard_assigned    `args = parse_args()` under the main guard; pool.map(worker) reads args.out_dir
                    (mmaction2 build_rawframes.py:27, build_videos.py:21, extract_audio.py:15,
                    resize_videos.py:22; issue open-mmlab/mmaction2#1527)              -> WSP107 hazard (NameError)
  global_in_main    main() does `global args; args = parse_args()`, the guard calls main()
                    (mmaction2 activitynet_feature_postprocessing.py:68)               -> WSP107 hazard (NameError)
  partial_args      the values travel in functools.partial (panotti's fix, drscotthawley/panotti#16)  -> safe
"""
import argparse
import multiprocessing as mp
import sys
from functools import partial

case = sys.argv[1]


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("case")
    p.add_argument("--out-dir", default="rawframes")
    p.add_argument("--num-worker", type=int, default=2)
    return p.parse_args()


def extract_frame(item):
    return f"{args.out_dir}/{item}"          # reads the global


def extract_frame_p(item, out_dir):
    return f"{out_dir}/{item}"


def main():
    global args
    args = parse_args()
    with mp.Pool(args.num_worker) as pool:
        print("OK", pool.map(extract_frame, range(4)), flush=True)


if __name__ == "__main__":
    if case == "guard_assigned":
        args = parse_args()
        pool = mp.Pool(args.num_worker)
        print("OK", pool.map(extract_frame, range(4)), flush=True)
        pool.close(); pool.join()
    elif case == "global_in_main":
        main()
    elif case == "partial_args":
        a = parse_args()
        with mp.Pool(a.num_worker) as pool:
            print("OK", pool.map(partial(extract_frame_p, out_dir=a.out_dir), range(4)), flush=True)
