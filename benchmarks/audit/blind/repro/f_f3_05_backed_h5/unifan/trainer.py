import torch


class Trainer:
    def __init__(self, dataset, batch_size=2, percent_training=1.0, num_workers=8):
        self.dataset = dataset
        train_length = int(dataset.N * percent_training)
        train_data, _ = torch.utils.data.random_split(dataset, (train_length, dataset.N - train_length))
        self.dataloader_all = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=num_workers)
        self.dataloader_train = torch.utils.data.DataLoader(train_data, batch_size=batch_size, shuffle=True,
                                                            num_workers=num_workers)

    def train(self):
        return [b.shape[0] for b in self.dataloader_train]
