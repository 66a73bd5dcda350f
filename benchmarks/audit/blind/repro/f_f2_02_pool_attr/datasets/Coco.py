# mimics pytorch-superpoint datasets/Coco.py: module-level functions kept as attributes (init_var)
import torch
import torch.utils.data as data


class Coco(data.Dataset):
    def __init__(self, export=False, transform=None, task='train', **config):
        self.transforms = transform
        self.samples = list(range(8))
        self.init_var()

    def init_var(self):
        from utils.homographies import sample_homography_np as sample_homography
        self.sample_homography = sample_homography

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        to_floatTensor = lambda x: torch.tensor(x).type(torch.FloatTensor)  # local, runs in the worker
        return to_floatTensor(self.sample_homography(index)[0, 0])
