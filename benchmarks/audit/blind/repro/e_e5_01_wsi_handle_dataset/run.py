"""Cases: hazard_passed_handle (extract_features_fp.py + Whole_Slide_Bag_FP), hazard_region (Wsi_Region),
safe_lazy (slide opened in the worker), safe_summary_unstored (h5py.File kept only in a local of summary()),
safe_pool_staticmethod (WholeSlideImage.process_contour's Pool.starmap with a staticmethod and a
module-level callable class instance), hazard_raster_in_init (FLAIR-1 zone_detect Sliced_Dataset),
safe_raster_per_item (FLAIR-1 fit_dataset opens each raster in a with block in __getitem__)."""
import multiprocessing as mp
import os
import sys
import tempfile

import h5py
import numpy as np
from torch.utils.data import DataLoader

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slide_datasets import BagFP, LazyBagFP, Region, WholeSlideImage, FakeSlide, IsInContour, SlicedDataset, FitDataset


def make_h5(d):
    p = os.path.join(d, "bag.h5")
    with h5py.File(p, "w") as f:
        ds = f.create_dataset("coords", data=np.arange(16).reshape(8, 2))
        ds.attrs["patch_level"] = 0
    return p


def main(case):
    with tempfile.TemporaryDirectory() as d:
        h5 = make_h5(d)
        if case == "hazard_passed_handle":
            wsi = FakeSlide("slide.svs")                 # openslide.open_slide(slide_file_path)
            ds = BagFP(h5, wsi)
        elif case == "safe_lazy":
            ds = LazyBagFP(h5, "slide.svs")
        elif case == "safe_summary_unstored":
            ds = LazyBagFP(h5, "slide.svs")
        elif case == "hazard_region":
            ds = Region(WholeSlideImage("slide.svs"), [(i, i) for i in range(8)])
        elif case == "safe_pool_staticmethod":
            with mp.Pool(2) as pool:
                res = pool.starmap(WholeSlideImage.process_coord_candidate,
                                   [((i, i), IsInContour(4)) for i in range(8)])
            print("OK pool", [r for r in res if r is not None])
            return
        elif case == "hazard_raster_in_init":
            ds = SlicedDataset(8, "ortho.tif")
        elif case == "safe_raster_per_item":
            ds = FitDataset(8, "ortho.tif")
        else:
            raise SystemExit("unknown case")
        loader = DataLoader(ds, batch_size=4, num_workers=2)
        n = sum(1 for _ in loader)
        print("OK batches", n)


if __name__ == "__main__":
    main(sys.argv[1])
