"""CRN speech enhancement train.py shape: collate_fn_pad is defined inside main() and passed
to DataLoader(num_workers=config value, 40 in the configs).
Cases: hazard (local collate, workers), module_level (same function at module level: safe),
val_workers0 (local collate with num_workers=0 as for the validation loader: safe)."""
import sys
import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Ds(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.ones(i + 1, 3), i


def collate_module(batch):
    return pad_sequence([b[0] for b in batch]), [b[1] for b in batch]


def main(config, case):
    def collate_fn_pad(batch):
        return pad_sequence([b[0] for b in batch]), [b[1] for b in batch]

    fn = collate_module if case == "module_level" else collate_fn_pad
    nw = 0 if case == "val_workers0" else config["num_workers"]
    loader = DataLoader(Ds(), batch_size=2, num_workers=nw, collate_fn=fn)
    for x, n in loader:
        print(tuple(x.shape), n)


if __name__ == "__main__":
    main({"num_workers": 2}, sys.argv[1])
    print("OK", sys.argv[1])
