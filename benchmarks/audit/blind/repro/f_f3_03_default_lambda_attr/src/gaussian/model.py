from torch.utils.data import DataLoader

from ..common.dataset import TrainValSet


class Mahalanobis:
    def __init__(self, dataset_cls):
        self.trainset = TrainValSet(dataset_cls(train=True), [0, 1, 2, 3])
        self.testset = dataset_cls(train=False)

    def train_dataloader(self):
        return DataLoader(self.trainset, batch_size=2, num_workers=2)

    def test_dataloader(self):
        return DataLoader(self.testset, batch_size=2)      # num_workers=0
