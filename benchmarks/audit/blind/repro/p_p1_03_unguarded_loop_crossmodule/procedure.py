# mimics KGCL Procedure.BPR_train_contrast: DataLoader(num_workers=12) iterated inside
from torch.utils.data import DataLoader

def bpr_train(dataset):
    loader = DataLoader(dataset, batch_size=4, shuffle=True, drop_last=True, num_workers=2)
    return sum(len(b[0]) for b in loader)
