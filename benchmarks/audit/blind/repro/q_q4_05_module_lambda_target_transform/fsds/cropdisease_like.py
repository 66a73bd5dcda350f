# mimics datasets/CropDisease_few_shot.py: module-level `identity = lambda x:x` is the default target_transform;
# SetDataset keeps per-class DataLoaders (0 workers) of SubDatasets; SetDataManager hands it to DataLoader(num_workers=12)
import os
import torch
from torch.utils.data import DataLoader

if os.environ.get("Q4_FIXED") == "1":
    def identity(x):
        return x
else:
    identity = lambda x: x


class SubDataset:
    def __init__(self, sub_meta, cl, target_transform=identity):
        self.sub_meta = sub_meta
        self.cl = cl
        self.target_transform = target_transform

    def __getitem__(self, i):
        return self.sub_meta[i], self.target_transform(self.cl)

    def __len__(self):
        return len(self.sub_meta)


class SetDataset:
    def __init__(self, batch_size, n_classes=4):
        self.sub_dataloader = []
        for cl in range(n_classes):
            sub = SubDataset([torch.full((3,), float(cl * 10 + k)) for k in range(batch_size)], cl)
            self.sub_dataloader.append(DataLoader(sub, batch_size=batch_size, shuffle=True, num_workers=0))

    def __getitem__(self, i):
        return next(iter(self.sub_dataloader[i]))

    def __len__(self):
        return len(self.sub_dataloader)


class EpisodicBatchSampler:
    def __init__(self, n_classes, n_way, n_episodes):
        self.n_classes, self.n_way, self.n_episodes = n_classes, n_way, n_episodes

    def __len__(self):
        return self.n_episodes

    def __iter__(self):
        for _ in range(self.n_episodes):
            yield torch.randperm(self.n_classes)[:self.n_way]


class SetDataManager:
    def __init__(self, batch_size=3, n_way=2, n_episodes=3, workers=2):
        self.batch_size, self.n_way, self.n_episodes, self.workers = batch_size, n_way, n_episodes, workers

    def get_data_loader(self):
        dataset = SetDataset(self.batch_size)
        sampler = EpisodicBatchSampler(len(dataset), self.n_way, self.n_episodes)
        return DataLoader(dataset, batch_sampler=sampler, num_workers=self.workers)
