"""Mimics d2l/torch.py (d2l-zh): load_data_ptb defines class PTBDataset inside the function and
returns DataLoader(..., collate_fn=batchify, num_workers=get_dataloader_workers()) (4);
load_data_snli uses the module-level SNLIDataset with the same worker count."""
import torch


def get_dataloader_workers():
    return 4


def batchify(data):
    return torch.tensor([c for c, _ in data]), torch.tensor([x for _, x in data])


class Vocab:
    def __init__(self, tokens):
        counter = {}
        for t in tokens:
            counter[t] = counter.get(t, 0) + 1
        self._token_freqs = sorted(counter.items(), key=lambda x: x[1], reverse=True)  # not stored
        self.idx_to_token = ['<unk>'] + [t for t, _ in self._token_freqs]
        self.token_to_idx = {t: i for i, t in enumerate(self.idx_to_token)}


def load_data_ptb(batch_size):
    num_workers = get_dataloader_workers()
    centers, contexts = list(range(16)), list(range(16, 32))

    class PTBDataset(torch.utils.data.Dataset):
        def __init__(self, centers, contexts):
            self.centers, self.contexts = centers, contexts

        def __getitem__(self, i):
            return self.centers[i], self.contexts[i]

        def __len__(self):
            return len(self.centers)

    return torch.utils.data.DataLoader(PTBDataset(centers, contexts), batch_size, shuffle=True,
                                       collate_fn=batchify, num_workers=num_workers)


class SNLIDataset(torch.utils.data.Dataset):
    def __init__(self, sentences):
        self.vocab = Vocab([w for s in sentences for w in s.split()])
        self.data = [torch.tensor([self.vocab.token_to_idx[w] for w in s.split()][:3] + [0] * 3)[:3]
                     for s in sentences]

    def __getitem__(self, i):
        return self.data[i], i % 3

    def __len__(self):
        return len(self.data)


def load_data_snli(batch_size):
    ds = SNLIDataset(["a man sleeps", "a dog runs far", "two people talk"] * 4)
    return torch.utils.data.DataLoader(ds, batch_size, shuffle=True,
                                       num_workers=get_dataloader_workers()), ds.vocab
