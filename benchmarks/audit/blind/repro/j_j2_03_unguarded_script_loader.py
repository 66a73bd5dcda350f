# mimics Person_reID_baseline_pytorch/train.py and test.py: no main guard, DataLoader(num_workers=2)
# iterated at top level (next(iter(loader)) / train_model(...) / extract_feature(...)).
# cases: hazard (unguarded), guarded (safe twin), parent_lambda (safe: filter(lambda) consumed in parent, guarded)
import sys
import torch
from torch.utils.data import DataLoader, TensorDataset

case = sys.argv[1] if len(sys.argv) > 1 else 'hazard'
ds = TensorDataset(torch.arange(16.).view(8, 2))


def run():
    loader = DataLoader(ds, batch_size=2, shuffle=True, num_workers=2)
    if case == 'parent_lambda':
        params = [torch.nn.Parameter(torch.zeros(1)), torch.nn.Parameter(torch.ones(1))]
        ignored = [id(params[0])]
        base = list(filter(lambda p: id(p) not in ignored, params))
        torch.optim.SGD(base, lr=0.1)
    inputs = next(iter(loader))
    print('OK', case)


if case == 'hazard':
    run()                      # top-level start of workers
else:
    if __name__ == '__main__':
        run()
