# mimics pytorch-superpoint utils/loader.py: dataset class chosen by name, module-level worker_init_fn
import importlib
import numpy as np
import torch
import torch.utils.data


def worker_init_fn(worker_id):
    base_seed = torch.IntTensor(1).random_().item()
    np.random.seed(base_seed + worker_id)


def get_module(path, name):
    mod = importlib.import_module('{}.{}'.format(path, name))
    return getattr(mod, name)


def dataLoader(config, dataset='syn'):
    training_params = config.get('training', {})
    workers_train = training_params.get('workers_train', 1)
    Dataset = get_module('datasets', dataset)
    train_set = Dataset(task='train', **config['data'])
    train_loader = torch.utils.data.DataLoader(
        train_set, batch_size=2, shuffle=True, num_workers=workers_train,
        worker_init_fn=worker_init_fn)
    return {'train_loader': train_loader, 'train_set': train_set}
