# mimics Pose-Transfer data/custom_dataset_data_loader.py: the DataLoader is iterated inside __iter__
import torch.utils.data


def CreateDataset(opt):
    from data.keypoint import KeyDataset
    dataset = KeyDataset()
    dataset.initialize(opt)
    return dataset


class CustomDatasetDataLoader:
    def initialize(self, opt):
        self.opt = opt
        self.dataset = CreateDataset(opt)
        self.dataloader = torch.utils.data.DataLoader(
            self.dataset, batch_size=opt.batchSize, shuffle=not opt.serial_batches,
            num_workers=int(opt.nThreads))

    def load_data(self):
        return self

    def __len__(self):
        return len(self.dataset)

    def __iter__(self):
        for i, data in enumerate(self.dataloader):
            yield data


def CreateDataLoader(opt):
    data_loader = CustomDatasetDataLoader()
    data_loader.initialize(opt)
    return data_loader
