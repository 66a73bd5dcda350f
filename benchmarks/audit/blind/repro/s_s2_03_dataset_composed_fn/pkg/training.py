import torch


def cycle(dl):
    while True:
        for data in dl:
            yield data


class Trainer:
    def __init__(self, dataset, num_workers=1):
        self.dataloader = cycle(torch.utils.data.DataLoader(dataset, batch_size=4, num_workers=num_workers, shuffle=True))
        self.dataloader_vis = cycle(torch.utils.data.DataLoader(dataset, batch_size=1, num_workers=0, shuffle=True))

    def train(self, n_train_steps):
        s = 0.0
        for _ in range(n_train_steps):
            s += float(next(self.dataloader).sum())
        return s
