# mimics NCRF wsi/bin/probs_map.py (DataLoader num_workers=args.num_workers, default 5) and
# wsi/bin/patch_gen.py (Pool.map of a module-level function that opens the slide itself)
import argparse
from multiprocessing import Pool

from torch.utils.data import DataLoader

from wsi_producer import FakeSlide, GridWSIPatchDataset

parser = argparse.ArgumentParser()
parser.add_argument("case")
parser.add_argument("--num_workers", default=2, type=int)


def process(opts):
    i, path = opts
    slide = FakeSlide(path)
    return float(slide.read_region((0, 0), 0, (2, 2)).sum())


def run(args):
    if args.case in ("hazard", "safe_lazy"):
        ds = GridWSIPatchDataset("slide.tif", lazy=(args.case == "safe_lazy"))
        dl = DataLoader(ds, batch_size=2, num_workers=args.num_workers, drop_last=False)
        n = sum(b.shape[0] for b in dl)
        print("OK", args.case, "patches", n)
    elif args.case == "safe_pool":
        with Pool(processes=2) as pool:
            print("OK", args.case, sum(pool.map(process, [(i, "slide.tif") for i in range(4)])))
    else:
        raise SystemExit("unknown case")


def main():
    run(parser.parse_args())


if __name__ == "__main__":
    main()
