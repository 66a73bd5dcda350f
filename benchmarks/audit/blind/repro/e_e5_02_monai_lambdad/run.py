"""Cases:
 hazard_lambdad_cache   hovernet/training.py: Lambdad(func=lambda) in a Compose kept by CacheDataset, DataLoader(num_workers=2)
 hazard_csv_lambda      camelyon_train_evaluate.py: CSVDataset(transform=Lambdad(lambda)) passed as data= of another Dataset
 hazard_factory_module  maisi scripts/utils.py: the lambdas are built in data_utils.prepare_loader, this script iterates
 safe_workers0          2d_ldm/utils.py: same lambdas, DataLoader(num_workers=0) (CacheDataset's num_workers are threads)
 safe_module_function   Lambdad(func=<module-level function>) with DataLoader(num_workers=2)
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np
from monai.data import CacheDataset, CSVDataset, Dataset, DataLoader
from monai.transforms import Compose, Lambdad

import data_utils


def main(case):
    items = [{"spacing": [1.0, 1.0, float(i)], "label": np.arange(4.0) + i} for i in range(8)]
    if case == "hazard_lambdad_cache":
        cfg = {"grid": 2}
        t = Compose([Lambdad(keys="label", func=lambda x: x.reshape((1, cfg["grid"], cfg["grid"])))])
        loader = DataLoader(CacheDataset(data=items, transform=t, cache_rate=1.0, num_workers=4),
                            batch_size=2, num_workers=2)
    elif case == "hazard_csv_lambda":
        d = tempfile.mkdtemp()
        csv = os.path.join(d, "train.csv")
        with open(csv, "w") as f:
            for i in range(8):
                f.write(f"slide{i},{i},{i * 2}\n")
        root = "/data"
        data_list = CSVDataset(csv, col_groups={"image": 0, "location": [2, 1]}, kwargs_read_csv={"header": None},
                               transform=Lambdad("image", lambda x: os.path.join(root, "images", x + ".tif")))
        loader = DataLoader(Dataset(data=data_list, transform=None), batch_size=2, num_workers=2)
    elif case == "hazard_factory_module":
        loader = data_utils.prepare_loader(items, use_lambda=True, num_workers=2)
    elif case == "safe_workers0":
        loader = data_utils.prepare_loader(items, use_lambda=True, num_workers=0)
    elif case == "safe_module_function":
        loader = data_utils.prepare_loader(items, use_lambda=False, num_workers=2)
    else:
        raise SystemExit("unknown case")
    n = sum(1 for _ in loader)
    print("OK batches", n)


if __name__ == "__main__":
    main(sys.argv[1])
