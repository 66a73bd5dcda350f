import torch
from torch.utils.data import Dataset
class ModSequences(Dataset):
    def __init__(self, dataset):
        self.sequences = dataset
    def __len__(self):
        return len(self.sequences)
    def __getitem__(self, idx):
        return self.sequences[idx], self.sequences[idx].shape[0]
def module_collate(batch):
    seqs, lengths = list(zip(*batch))
    return torch.stack(seqs), torch.tensor(lengths)
