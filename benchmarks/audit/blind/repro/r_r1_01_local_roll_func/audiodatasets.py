# mimics PaSST helpers/audiodatasets.py: a wrapper dataset that keeps a preprocessing callable
from torch.utils.data import Dataset


class PreprocessDataset(Dataset):
    def __init__(self, dataset, preprocessor):
        self.dataset = dataset
        if not callable(preprocessor):
            raise ValueError("preprocessor should be callable")
        self.preprocessor = preprocessor

    def __getitem__(self, index):
        return self.preprocessor(self.dataset[index])

    def __len__(self):
        return len(self.dataset)


def worker_init_fn(x):  # module-level, as helpers/workersinit.py
    import numpy as np
    np.random.seed(x)
