"""e_e2_04: an options *module* (import src.config.train_opt as opt) stored on the dataset (EverybodyDanceNow
train_pose2vid.py -> pix2pixHD aligned_dataset.py:10); the lambdas of get_transform are built inside __getitem__.
Cases: hazard (module opt, 2 workers: cannot pickle 'module' object), namespace (SimpleNamespace copy of the
module's values: safe), zero_workers (module opt, nThreads=0 as face_enhancer/prepare.py: safe).
Run from this folder: python train_pose2vid.py CASE"""
import sys, types
from data.aligned_dataset import CreateDataLoader
import config.train_opt as opt


def main():
    case = sys.argv[1]
    o = opt
    if case == "namespace":
        o = types.SimpleNamespace(**{k: v for k, v in vars(opt).items() if not k.startswith("__")})
    elif case == "zero_workers":
        opt.nThreads = 0
    loader = CreateDataLoader(o)
    print("RESULT", sum(float(b.sum()) for b in loader))


if __name__ == "__main__":
    main()
