from torch.utils.data import Dataset
from . import cifar
__all__ = names = ("CIFAR10IncludeLabels", "CIFAR10ModuleLevelIncludeLabels")

class IncludeLabelsDataset(Dataset):
    def __init__(self, dataset, include_labels=(0,)):
        self.dataset = dataset
        self.idx = [i for i in range(len(dataset)) if int(dataset[i][1]) in include_labels]
    def __len__(self): return len(self.idx)
    def __getitem__(self, i): return self.dataset[self.idx[i]]

def get_include_labels_dataset(dataset):
    class Cls(IncludeLabelsDataset):        # local class, as nbdt/data/custom.py:170
        def __init__(self, *args, root="./data", include_labels=(0,), **kwargs):
            super().__init__(dataset=dataset(*args, root=root, **kwargs), include_labels=include_labels)
    Cls.__name__ = f"{dataset.__class__.__name__}IncludeLabels"
    return Cls

CIFAR10IncludeLabels = get_include_labels_dataset(cifar.CIFAR10)

class CIFAR10ModuleLevelIncludeLabels(IncludeLabelsDataset):   # the fix: a module-level class
    def __init__(self, *args, root="./data", include_labels=(0,), **kwargs):
        super().__init__(dataset=cifar.CIFAR10(*args, root=root, **kwargs), include_labels=include_labels)
