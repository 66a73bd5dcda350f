# mimics fbrs isegm/engine/trainer.py: ISTrainer builds DataLoader(num_workers=cfg.workers)
from torch.utils.data import DataLoader


class ISTrainer:
    def __init__(self, cfg, trainset):
        self.train_data = DataLoader(trainset, 2, shuffle=True, drop_last=True, num_workers=cfg.workers)

    def training(self, epoch):
        return sum(b.shape[0] for b in self.train_data)
