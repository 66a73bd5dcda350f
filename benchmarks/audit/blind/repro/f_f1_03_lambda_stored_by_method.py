"""zhrtvc mellotron shape: the validation Dataset keeps a TacotronSTFT module; validate()
calls valset.stft.griffin_lim(mel) in the parent, which stores
`lambda x: self.griffin_lim_(x, ...)` in stft.denoiser.vocoder; the next validate() builds
a new DataLoader(valset, num_workers=1), which pickles the dataset -> lambda.
Cases: hazard (two validations), first_only (one validation: the lambda is stored only after
the workers have been started: safe), bound_collate (zhrtvc encoder: DataLoader subclass
passing collate_fn=self.collate, dataset with a plain cycler object: safe)."""
import random
import sys
import torch
from torch.utils.data import DataLoader, Dataset


class Denoiser(torch.nn.Module):
    def __init__(self, vocoder):
        super().__init__()
        self.vocoder = vocoder


class TacotronSTFT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mel_basis", torch.ones(4, 4))
        self.denoiser = None

    def griffin_lim_(self, x, n_iters=60):
        return x @ self.mel_basis

    def griffin_lim(self, x, n_iters=5):
        out = self.griffin_lim_(x, n_iters=n_iters)
        if self.denoiser is None:
            voc = lambda x: self.griffin_lim_(x, n_iters=n_iters)
            self.denoiser = Denoiser(voc)
        return out


class TextMelLoader(Dataset):
    def __init__(self):
        self.stft = TacotronSTFT()

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((4,), float(i))


def validate(valset):
    loader = DataLoader(valset, num_workers=1, batch_size=2)
    for batch in loader:
        valset.stft.griffin_lim(batch)
    print("validated", flush=True)


class Cycler:
    def __init__(self, items):
        self.all_items = list(items)

    def sample(self):
        shuffle = lambda l: random.sample(l, len(l))
        return shuffle(self.all_items)[0]


class SpeakerDataset(Dataset):
    def __init__(self):
        self.cycler = Cycler(range(5))

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.cycler.sample()


class SpeakerLoader(DataLoader):
    def __init__(self, dataset, num_workers):
        self.k = 2
        super().__init__(dataset, batch_size=2, num_workers=num_workers, collate_fn=self.collate)

    def collate(self, items):
        return [x * self.k for x in items]


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "bound_collate":
        print(list(SpeakerLoader(SpeakerDataset(), num_workers=2)))
    else:
        valset = TextMelLoader()
        validate(valset)
        if case == "hazard":
            validate(valset)
    print("OK", case)
