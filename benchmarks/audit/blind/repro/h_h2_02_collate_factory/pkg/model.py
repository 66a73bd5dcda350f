from torch.utils.data import DataLoader
from .data import ItemDataset, get_collate_fn, Collate

def train_dataloader(case, num_workers=2):
    collate = get_collate_fn(False) if case == "hazard" else Collate(False)
    return DataLoader(ItemDataset(), batch_size=2, collate_fn=collate, num_workers=num_workers)
