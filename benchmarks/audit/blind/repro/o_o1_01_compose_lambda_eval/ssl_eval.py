# ssl_eval.py: mimics simclr-pytorch models/ssl.py: SSLEval.transforms() puts lambdas in a Compose kept by the dataset
import torch
from torch.utils.data import Dataset, DataLoader


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x


class Clip:  # module-level, like utils/datautils.Clip
    def __call__(self, x):
        return torch.clamp(x, 0, 1)


class FolderLike(Dataset):  # stands in for torchvision ImageFolder(transform=...)
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.transform(torch.rand(3, 4, 4)), i % 2


class SSLEval:
    def __init__(self, data, workers=2):
        self.data, self.workers = data, workers

    def transforms(self):
        if self.data == 'imagenet':
            train_t = Compose([lambda x: (255 * x).byte()])
            test_t = Compose([lambda x: (255 * x).byte()])
        else:
            train_t = Compose([Clip()])
            test_t = Compose([Clip()])
        return train_t, test_t

    def prepare_data(self):
        tr, te = self.transforms()
        self.trainset, self.testset = FolderLike(tr), FolderLike(te)

        def create_emb_dataset(ds):  # local function used in the parent only
            loader = DataLoader(ds, batch_size=4, num_workers=self.workers)
            return torch.utils.data.TensorDataset(torch.cat([x.float().flatten(1) for x, _ in loader]))
        if self.data == 'parent_local':
            self.testset = create_emb_dataset(self.testset)

    def dataloaders(self):
        return (DataLoader(self.trainset, batch_size=4, num_workers=self.workers),
                DataLoader(self.testset, batch_size=4, num_workers=self.workers))
