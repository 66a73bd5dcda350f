# mimics torchseq JsonDataset.pad_and_order_sequences (staticmethod factory returning a local function)
# and awesome-align word_align() (collate defined inside the function that builds the DataLoader).
# cases: factory (hazard WSP202), local_def (hazard WSP202), callable_class (safe twin, Speech-Transformer LFRCollate),
#        local_def_zero_workers (safe: run_train.py shape, DataLoader without num_workers)
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class JsonDataset(Dataset):
    def __init__(self, n=8):
        self.items = [torch.arange(i % 3 + 1) for i in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

    @staticmethod
    def pad_and_order_sequences(pad_id):
        def _pad_and_order_sequences(batch):
            return torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=pad_id)
        return _pad_and_order_sequences


class LFRCollate(object):
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, batch):
        return torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=self.pad_id)


def word_align(workers):
    def collate(examples):
        return torch.nn.utils.rnn.pad_sequence(examples, batch_first=True, padding_value=0)
    loader = DataLoader(JsonDataset(), batch_size=2, collate_fn=collate, num_workers=workers)
    return sum(b.shape[0] for b in loader)


def main(case):
    if case == "factory":
        dl = DataLoader(JsonDataset(), batch_size=2, num_workers=2, collate_fn=JsonDataset.pad_and_order_sequences(0))
        print("OK", sum(b.shape[0] for b in dl))
    elif case == "callable_class":
        dl = DataLoader(JsonDataset(), batch_size=2, num_workers=2, collate_fn=LFRCollate(0))
        print("OK", sum(b.shape[0] for b in dl))
    elif case == "local_def":
        print("OK", word_align(2))
    elif case == "local_def_zero_workers":
        print("OK", word_align(0))


if __name__ == "__main__":
    main(sys.argv[1])
