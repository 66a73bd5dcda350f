"""m_m2_02 (MonoRec): guarded train.py; the dataset keeps pykitti.odometry objects whose .calib is an
instance of a namedtuple class made inside a method.  Cases: hazard (WSP301-like), safe (plain data kept;
ColorJitterMulti lambda made lazily in __getitem__)."""
import sys
from data_loaders import KittiOdometryDataloader


def main(mode):
    loader = KittiOdometryDataloader(mode, num_workers=4)
    n = 0
    for b in loader:
        n += b.shape[0]
    print("OK", mode, "samples=%d" % n)


if __name__ == "__main__":
    main(sys.argv[1])
