"""Mimics opennre/framework/{data_loader,sentence_re}.py and MultiTQ utils.train:
a project module builds DataLoaders with num_workers>0 (default 8 / literal 5) and
iterates them inside a method the script calls."""
import torch
import torch.utils.data as data


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(50, 4)

    def tokenize(self, item):            # bound method stored on the dataset (OpenNRE)
        return (torch.tensor([[len(item['text']) % 50]]),)


class SentenceREDataset(data.Dataset):
    def __init__(self, rows, tokenizer):
        self.rows = rows
        self.tokenizer = tokenizer        # bound method of an nn.Module: picklable

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return [self.rows[i]['label']] + list(self.tokenizer(self.rows[i]))

    def collate_fn(data):                 # plain function in a class body (no self)
        data = list(zip(*data))
        return [torch.tensor(data[0])] + [torch.cat(s, 0) for s in data[1:]]


def SentenceRELoader(rows, tokenizer, batch_size, num_workers=2,
                     collate_fn=SentenceREDataset.collate_fn):
    ds = SentenceREDataset(rows, tokenizer)
    return data.DataLoader(ds, batch_size=batch_size, num_workers=num_workers,
                           collate_fn=collate_fn)


class SentenceRE:
    def __init__(self, rows, encoder):
        self.train_loader = SentenceRELoader(rows, encoder.tokenize, 4)

    def train_model(self):
        n = 0
        for batch in self.train_loader:
            n += batch[0].shape[0]
        return n
