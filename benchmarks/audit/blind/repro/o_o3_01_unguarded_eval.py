# Mimics pytorch-resnet3d eval.py / YOWO main.py: DataLoader(num_workers>0) iterated by top-level code.
import sys
import torch
from torch.utils.data import Dataset, DataLoader

CASE = sys.argv[1] if len(sys.argv) > 1 else "hazard"

class Clips(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return torch.zeros(3, 4, 8, 8), i

def test(loader):
    for frames, idx in loader:
        pass
    print("OK iterated", CASE)

testloader = DataLoader(Clips(), batch_size=2, num_workers=2)

if CASE == "hazard":
    # unguarded, as in eval.py:64-65 (with torch.no_grad(): test()) / YOWO main.py:127
    with torch.no_grad():
        test(testloader)
elif CASE == "enumerate_toplevel":
    # tsn-pytorch test_models.py:95 / TSM test_models.py:201 inside top-level for at :117
    data_gen = enumerate(testloader)
    for i, (frames, idx) in data_gen:
        pass
    print("OK iterated", CASE)
elif CASE == "safe":
    if __name__ == "__main__":
        with torch.no_grad():
            test(testloader)
