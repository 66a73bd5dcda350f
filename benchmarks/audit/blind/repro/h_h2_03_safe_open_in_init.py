"""Shape (scal-sdt ImagePromptDataset): dataset opens a safetensors cache with safe_open() in __init__ and
is iterated by a DataLoader(num_workers=2). Under spawn the dataset is pickled: TypeError cannot pickle
'builtins.safe_open'. Safe twin: open lazily in __getitem__. Cases: hazard | safe"""
import sys, os, tempfile
import torch
from torch.utils.data import Dataset, DataLoader
from safetensors import safe_open
from safetensors.torch import save_file

class CacheDataset(Dataset):
    def __init__(self, path, lazy):
        self.path, self.cache = path, None
        if not lazy:
            self.cache = safe_open(path, framework="pt", device="cpu")
    def __len__(self): return 4
    def __getitem__(self, i):
        if self.cache is None:
            self.cache = safe_open(self.path, framework="pt", device="cpu")
        return self.cache.get_tensor(f"t{i}")

def main(case):
    path = os.path.join(tempfile.mkdtemp(), "cache.safetensors")
    save_file({f"t{i}": torch.full((2,), float(i)) for i in range(4)}, path)
    dl = DataLoader(CacheDataset(path, lazy=(case == "safe")), batch_size=2, num_workers=2)
    print("OK", sum(float(b.sum()) for b in dl))

if __name__ == "__main__":
    main(sys.argv[1])
