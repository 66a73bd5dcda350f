"""WaveRNN utils/dataset.py stand-in."""
import torch
from torch.utils.data import DataLoader, Dataset
from utils import hparams as hp


class VocoderDataset(Dataset):
    def __init__(self, ids):
        self.metadata = ids

    def __getitem__(self, index):
        return torch.arange(8.0) + self.metadata[index]

    def __len__(self):
        return len(self.metadata)


class TTSDataset(Dataset):
    def __init__(self, ids):
        self.metadata = ids

    def __getitem__(self, index):
        return len(hp.tts_cleaner_names) + self.metadata[index]     # worker reads hp

    def __len__(self):
        return len(self.metadata)


def collate_vocoder(batch):
    seq = hp.voc_seq_len                                           # worker reads hp
    return torch.stack([x[:seq] for x in batch])


def collate_tts(batch, r):
    return torch.tensor(batch) * r


def get_vocoder_datasets(ids):
    train_set = DataLoader(VocoderDataset(ids), collate_fn=collate_vocoder, batch_size=2, num_workers=2)
    test_set = DataLoader(VocoderDataset(ids), batch_size=1, num_workers=1)
    return train_set, test_set


def get_tts_datasets(ids, r, use_lambda=True):
    if use_lambda:
        collate = lambda batch: collate_tts(batch, r)
    else:
        import functools
        collate = functools.partial(collate_tts, r=r)
    return DataLoader(TTSDataset(ids), collate_fn=collate, batch_size=2, num_workers=1)
