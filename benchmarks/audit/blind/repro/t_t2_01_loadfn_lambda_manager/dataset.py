# mimics parallel_wavegan/datasets/audio_mel_dataset.py: load functions and a Manager cache kept on the dataset
from multiprocessing import Manager
import queue
import numpy as np
from torch.utils.data import Dataset


class AudioMelDataset(Dataset):
    def __init__(self, files, audio_load_fn=np.load, allow_cache=False, storage_size=0):
        self.files = files
        self.audio_load_fn = audio_load_fn
        self.allow_cache = allow_cache
        if storage_size:  # mimics TTS/speaker_encoder/dataset.py: self.storage = queue.Queue(...)
            self.storage = queue.Queue(maxsize=storage_size)
        if allow_cache:
            self.manager = Manager()
            self.caches = self.manager.list()
            self.caches += [() for _ in range(len(files))]

    def __getitem__(self, idx):
        return self.audio_load_fn(self.files[idx])

    def __len__(self):
        return len(self.files)
