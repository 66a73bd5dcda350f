# mimics nickgkan/orange src/data_loaders/base_data_loader.py: a DataLoader subclass passes
# collate_fn=lambda data: grasp_collate_fn(data, dataset.features) to super().__init__, num_workers=2 (main.py default).
# cases: hazard (lambda collate), safe_partial (functools.partial of the module-level collate),
#        safe_bound_methods (dataset keeps a dict of its own bound methods, like BaseDataset._methods)
import sys, functools, torch

def grasp_collate_fn(batch, features):
    return {f: torch.stack([b[f] for b in batch]) for f in features}

class BaseDataset(torch.utils.data.Dataset):
    def __init__(self, features):
        self.features = features
        self._methods = {'images': self.get_image}      # bound methods: picklable
    def get_image(self, i):
        return torch.full((3,), float(i))
    def __getitem__(self, i):
        return {f: self._methods[f](i) for f in self.features}
    def __len__(self):
        return 8

class GraspDataLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, batch_size, num_workers=2, mode='hazard'):
        if mode == 'hazard':
            cf = lambda data: grasp_collate_fn(data, dataset.features)
        else:
            cf = functools.partial(grasp_collate_fn, features=dataset.features)
        super().__init__(dataset, batch_size=batch_size, num_workers=num_workers, collate_fn=cf)

def main(case):
    mode = 'hazard' if case == 'hazard' else 'safe'
    n = 0
    for b in GraspDataLoader(BaseDataset(['images']), 4, 2, mode):
        n += b['images'].shape[0]
    print('OK', case, n)

if __name__ == '__main__':
    main(sys.argv[1])
