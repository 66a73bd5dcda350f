# Stands for the importable library code (torchvision Omniglot / easyfsl CUB and TaskSampler).
import random
import torch
from torch.utils.data import Dataset, Sampler


class Omniglot(Dataset):
    """No get_labels method: the notebook patches one on the instance."""
    def __init__(self, n=40):
        self._flat_character_images = [(i, i % 8) for i in range(n)]

    def __len__(self):
        return len(self._flat_character_images)

    def __getitem__(self, i):
        img, label = self._flat_character_images[i]
        return torch.tensor([float(img)]), label


class CUB(Omniglot):
    """A library dataset that defines get_labels as a method."""
    def get_labels(self):
        return [label for _, label in self._flat_character_images]


class TaskSampler(Sampler):
    def __init__(self, dataset, n_way, n_shot, n_tasks):
        self.n_way, self.n_shot, self.n_tasks = n_way, n_shot, n_tasks
        self.items_per_label = {}
        for item, label in enumerate(dataset.get_labels()):
            self.items_per_label.setdefault(label, []).append(item)

    def __len__(self):
        return self.n_tasks

    def __iter__(self):
        for _ in range(self.n_tasks):
            labels = random.sample(sorted(self.items_per_label), self.n_way)
            yield [i for l in labels for i in random.sample(self.items_per_label[l], self.n_shot)]

    def episodic_collate_fn(self, batch):
        return torch.cat([x for x, _ in batch]), torch.tensor([y for _, y in batch])
