"""r13: generator-like state on objects sent to DataLoader workers.

Cases: torch_generator_attr = a torch.Generator kept on the Dataset; torch_generator_sampler =
a torch.Generator kept on a Sampler (samplers stay in the main process); tensor_from_generator =
torch.randint(generator=torch.Generator()) result stored (RandomTokenDataset shape).
"""
import sys

import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class Tokens(Dataset):
    def __init__(self, case):
        if case == "torch_generator_attr":
            self.gen = torch.Generator()
        self.tokens = torch.randint(10, size=(8,), generator=torch.Generator().manual_seed(0))

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.tokens[i]


class Repeat(Sampler):
    def __init__(self, n):
        self.n = n
        self.generator = torch.Generator()

    def __iter__(self):
        return iter(torch.randperm(self.n, generator=self.generator).tolist())

    def __len__(self):
        return self.n


if __name__ == "__main__":
    case = sys.argv[1]
    sampler = Repeat(8) if case == "torch_generator_sampler" else None
    loader = DataLoader(Tokens(case), batch_size=4, sampler=sampler, num_workers=2)
    print("sum", sum(b.sum().item() for b in loader))
