from torch.utils.data import Dataset


class AnomalyDetectionDataset(Dataset):
    def __init__(self, train=True, transform=None, target_transform=None):
        self.train = train
        self.transform = transform
        self.target_transform = target_transform      # keeps whatever the subclass passes

    def __getitem__(self, i):
        x, y = self.samples[i]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.target_transform(y)

    def __len__(self):
        return len(self.samples)


class TrainValSet(Dataset):
    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        return self.dataset[self.indices[i]]
