# mimics sqlova/utils/utils_wikisql.py: loaders built in a project module, collate lambda, 4 workers
import torch.utils.data


def identity(x):
    return x


def get_loader_wikisql(data_train, data_dev, bS, use_lambda=True, workers=2):
    coll = (lambda x: x) if use_lambda else identity
    train_loader = torch.utils.data.DataLoader(batch_size=bS, dataset=data_train, shuffle=True,
                                               num_workers=workers, collate_fn=coll)
    dev_loader = torch.utils.data.DataLoader(batch_size=bS, dataset=data_dev, shuffle=False,
                                             num_workers=workers, collate_fn=coll)
    return train_loader, dev_loader
