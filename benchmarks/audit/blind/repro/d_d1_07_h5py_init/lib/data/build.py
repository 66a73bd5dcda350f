# Mimics graph-rcnn lib/data/build.py: DataLoader(num_workers=images_per_batch) (TRAIN_BATCH_SIZE 4 / 8 -> 2).
from torch.utils import data
from .vg_hdf5 import vg_hdf5, SunrgbdLike


def build_data_loader(data_dir, case, images_per_batch=2):
    if case == "closed_pickle":
        dataset = SunrgbdLike(data_dir)
    else:
        dataset = vg_hdf5(data_dir, lazy=(case == "sort_key_lambda"))
    return data.DataLoader(dataset, batch_size=2, num_workers=images_per_batch)
