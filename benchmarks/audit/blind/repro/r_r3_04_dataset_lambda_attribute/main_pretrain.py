import sys
import torch
from datasets.ogb_like import PygGraphPropPredDataset, collate

if __name__ == "__main__":
    case = sys.argv[1]
    dataset = PygGraphPropPredDataset()
    split_idx = {"train": list(range(12))}
    workers = 0 if case == "zero_workers" else 2     # semisupervised_OGB/code scripts default to 0
    loader = torch.utils.data.DataLoader(dataset[split_idx["train"]], batch_size=4, shuffle=True,
                                         num_workers=workers, collate_fn=collate)
    print("OK", case, sum(1 for _ in loader), "batches")
