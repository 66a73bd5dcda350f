# mimics ast src/dataloader.py AudiosetDataset (metadata read in with-blocks: picklable)
import json, os, tempfile
import torch


class AudiosetDataset(torch.utils.data.Dataset):
    def __init__(self, n=8):
        p = os.path.join(tempfile.gettempdir(), "r_r1_06_data.json")
        with open(p, "w") as fp:
            json.dump({"data": list(range(n))}, fp)
        with open(p) as fp:
            self.data = json.load(fp)["data"]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return torch.zeros(4)
