from torch.utils.data import Dataset, DataLoader
from sevir_dataloader import SEVIRDataLoader


def first_item(x):
    return x[0]


class SEVIRTorchDataset(Dataset):
    def __init__(self, path, open_in_init=True, catalog_filter=None):
        self.sevir_dataloader = SEVIRDataLoader(path, open_in_init=open_in_init, catalog_filter=catalog_filter)

    def __getitem__(self, index):
        return self.sevir_dataloader._idx_sample(index)

    def __len__(self):
        return len(self.sevir_dataloader)

    def get_torch_dataloader(self, outer_batch_size=1, num_workers=1, use_lambda=True):
        if outer_batch_size == 1:
            collate_fn = (lambda x: x[0]) if use_lambda else first_item
        return DataLoader(self, batch_size=outer_batch_size, collate_fn=collate_fn, num_workers=num_workers)
