# mimics CFSNet data/sr_dataset.py / SPSR code/data/LRHR_dataset.py: env stored in __init__
import torch
from torch.utils.data import Dataset
import util


class LRGTDataset(Dataset):
    def __init__(self, opt):
        self.opt = opt
        self.GT_env = None
        self.GT_env, self.paths_GT = util.get_image_paths(opt["data_type"], opt["dataroot_GT"])

    def __len__(self):
        return len(self.paths_GT)

    def __getitem__(self, i):
        b = util.read_img(self.GT_env, self.paths_GT[i], self.opt["dataroot_GT"])
        return torch.tensor(len(b))
