import numpy as np
import torch


class TsnDataset(torch.utils.data.Dataset):
    def __init__(self, dataset, num_segments=2, transform=None):
        self.dataset = dataset
        self.num_segments = num_segments
        self.transform = transform

    def __getitem__(self, index):
        rec = self.dataset.video_records[index]
        imgs = self.dataset.load_frames(rec, list(range(self.num_segments)))
        return torch.from_numpy(np.stack(imgs)), index

    def __len__(self):
        return len(self.dataset.video_records)
