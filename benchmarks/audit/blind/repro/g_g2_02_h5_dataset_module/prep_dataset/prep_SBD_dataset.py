import torch.utils.data
from dataloader.SBD_data import SBDData


def get_dataloader(args, h5path):
    train_dataset = SBDData(h5path, lazy=(args.case == "lazy"))
    return torch.utils.data.DataLoader(train_dataset, batch_size=2, shuffle=True, num_workers=args.workers)
