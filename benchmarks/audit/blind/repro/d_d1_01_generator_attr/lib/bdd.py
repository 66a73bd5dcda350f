# Mimics YOLOP lib/dataset/bdd.py: the subclass consumes list(self.mask_list) but leaves the attribute as is.
from .autodrive import AutoDriveDataset


class BddDataset(AutoDriveDataset):
    def __init__(self, root, listed=False):
        super().__init__(root, listed)
        self.db = [len(p.name) for p in list(self.mask_list)]
