# mimics CLIP-rsicd/utils/data.py (and the copies in run_clip_flax_tv.py): Transform(nn.Module) and
# ImageTextDataset(VisionDataset) that keeps the transform it is given
import torch
from torch.utils.data import Dataset


class Transform(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.transforms = torch.nn.Sequential(torch.nn.Identity())
        self.n = n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            x = self.transforms(x)
        return x


class ImageTextDataset(Dataset):
    def __init__(self, n, transform=None):
        self.n = n
        self.transform = transform
        self.captions = ['caption %d' % i for i in range(n)]

    def __getitem__(self, i):
        return self.transform(torch.full((3,), float(i))), self.captions[i]

    def __len__(self):
        return self.n


def module_collate(examples):
    return torch.stack([e[0] for e in examples]).numpy(), [e[1] for e in examples]
