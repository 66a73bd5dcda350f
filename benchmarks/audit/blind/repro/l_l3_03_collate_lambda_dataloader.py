"""MockingBird shape: run_synthesis() builds DataLoader(collate_fn=lambda batch:
collate_synthesizer(batch), num_workers = 0 if win else 2) and iterates it; called from a
guarded CLI script. cases: hazard (lambda collate, 2 workers), safe (module-level collate_fn,
as models/synthesizer/train.py does)."""
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class SynthesizerDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([float(i)])


def collate_synthesizer(batch):
    return torch.stack(batch)


def run_synthesis(use_lambda):
    num_workers = 2
    ds = SynthesizerDataset()
    if use_lambda:
        dl = DataLoader(ds, collate_fn=lambda batch: collate_synthesizer(batch),
                        batch_size=4, num_workers=num_workers)
    else:
        dl = DataLoader(ds, collate_fn=collate_synthesizer, batch_size=4,
                        num_workers=num_workers)
    return [b.sum().item() for b in dl]


if __name__ == '__main__':
    case = sys.argv[1]
    print(case, 'OK', run_synthesis(case == 'hazard'))
