"""Runs 'cells' in an IPython InteractiveShell (its user module is __main__ without __file__, as in a Jupyter
kernel), so spawned DataLoader workers cannot re-import the notebook.
Cases:
 hazard_nb_dataset_class   mednist_tutorial.ipynb cell 20: class MedNISTDataset defined in the notebook, num_workers=10 (here 2)
 hazard_nb_maptransform    brats_segmentation_3d.ipynb cell 11: MapTransform subclass defined in the notebook, in a Compose
 hazard_nb_lambdad         3d_ddpm / 2d_controlnet notebooks: Lambdad(func=lambda) in a Compose kept by the dataset
 safe_nb_parent_lambda     deep_atlas cell 24: filter(lambda ...) on the data list in the parent only
 safe_nb_package_objects   dataset class imported from a module (DeepCAD-RT notebooks' deepcad package)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

COMMON = f"""
import sys; sys.path.insert(0, {HERE!r})
import numpy as np, torch
from monai.data import Dataset, DataLoader
from monai.transforms import Compose, Lambdad, MapTransform
data = [{{"image": np.arange(4.0) + i, "seg": 1}} if i % 2 else {{"image": np.arange(4.0) + i}} for i in range(8)]
"""

CELLS = {
    "hazard_nb_dataset_class": ["""
class MedNISTDataset(torch.utils.data.Dataset):
    def __init__(self, xs, transforms):
        self.xs, self.transforms = xs, transforms
    def __len__(self):
        return len(self.xs)
    def __getitem__(self, i):
        return self.transforms(self.xs[i]["image"])
ds = MedNISTDataset(data, torch.as_tensor)
loader = DataLoader(ds, batch_size=2, shuffle=True, num_workers=2)
""", "print('batches', sum(1 for _ in loader))"],
    "hazard_nb_maptransform": ["""
class ConvertToMultiChannel(MapTransform):
    def __call__(self, data):
        d = dict(data)
        for key in self.keys:
            d[key] = torch.stack([torch.as_tensor(d[key]) > 1, torch.as_tensor(d[key]) > 2]).float()
        return d
""", """
t = Compose([ConvertToMultiChannel(keys="image")])
loader = DataLoader(Dataset(data=data, transform=t), batch_size=2, num_workers=2)
print('batches', sum(1 for _ in loader))
"""],
    "hazard_nb_lambdad": ["""
t = Compose([Lambdad(keys="image", func=lambda x: x[:2])])
loader = DataLoader(Dataset(data=data, transform=t), batch_size=2, num_workers=2)
print('batches', sum(1 for _ in loader))
"""],
    "safe_nb_parent_lambda": ["""
data_seg = list(filter(lambda d: "seg" in d.keys(), data))
loader = DataLoader(Dataset(data=data_seg), batch_size=2, num_workers=2)
print('batches', sum(1 for _ in loader))
"""],
    "safe_nb_package_objects": ["""
from nbpkg import PkgDataset
loader = DataLoader(PkgDataset([d["image"] for d in data]), batch_size=2, num_workers=2)
print('batches', sum(1 for _ in loader))
"""],
}


def main(case, method):
    import multiprocessing as mp
    mp.set_start_method(method, force=True)
    from IPython.core.interactiveshell import InteractiveShell
    shell = InteractiveShell.instance()
    for i, code in enumerate([COMMON] + CELLS[case], 1):
        res = shell.run_cell(code)
        if not res.success:
            err = res.error_in_exec or res.error_before_exec
            print(f"CELL {i} FAILED: {type(err).__name__}: {err}")
            return 1
    print("ALL CELLS OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "spawn"))
