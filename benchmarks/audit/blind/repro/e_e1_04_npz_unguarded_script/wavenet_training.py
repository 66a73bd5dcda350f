import torch


class WavenetTrainer:
    def __init__(self, dataset, logger=None):
        self.dataset = dataset
        self.logger = logger            # keeps a callback (parent only)

    def train(self, batch_size=2, epochs=1):
        self.dataloader = torch.utils.data.DataLoader(self.dataset, batch_size=batch_size,
                                                      shuffle=True, num_workers=2)
        for _ in range(epochs):
            for x in iter(self.dataloader):
                pass
        if self.logger:
            self.logger(0)
