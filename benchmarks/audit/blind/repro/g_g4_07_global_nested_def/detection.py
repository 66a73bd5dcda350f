# Shape: pyboreas/eval/detection.py get_bbs(): `global _load_bb` then `def _load_bb(lid)` inside the
# function, mapped by Pool(cpu_count()) from the guarded script -> WSP202: the function pickles by
# reference as __main__._load_bb, which the spawned worker's re-import (__mp_main__) never defines.
# Cases: global_nested_def (hazard), module_level_def (safe twin),
# package_class_starmap (safe: BoreasDataset's Pool.starmap(Sequence) on a package class, as the
# tutorials/intro.ipynb cell does).
import os
import sys
from multiprocessing import Pool

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pkg.sequence import BoreasDataset  # noqa: E402


def _load_bb_top(lid):
    return lid.upper()


def get_bbs(root, split, noise=False, nested=True):
    bd = BoreasDataset(root, split)
    frames = []
    for seq in bd.sequences:
        frames.extend(seq.lidar_frames)

    global _load_bb

    def _load_bb(lid):
        return lid.upper() + ("*" if noise else "")

    pool = Pool(2)
    res = list(pool.map(_load_bb if nested else _load_bb_top, frames))
    pool.close()
    pool.join()
    return res


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "global_nested_def":
        print(get_bbs("/tmp", ["a", "b"], nested=True))
    elif case == "module_level_def":
        print(get_bbs("/tmp", ["a", "b"], nested=False))
    elif case == "package_class_starmap":
        print([s.ID for s in BoreasDataset("/tmp", ["a", "b"]).sequences])
    print("OK", case)
