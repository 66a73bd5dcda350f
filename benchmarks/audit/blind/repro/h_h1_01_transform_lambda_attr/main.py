# mimics donydchen/ganimation_replicate: main.py (guarded) -> solver -> data.create_dataloader
# -> BaseDataset.img_transformer keeps transforms.Lambda(lambda ...) when --resize_or_crop none (default)
import sys, types
from data import create_dataloader

def run(case):
    opt = types.SimpleNamespace(n_threads=2,
                                resize_or_crop={'hazard': 'none', 'safe': 'crop'}[case])
    n = 0
    for batch in create_dataloader(opt):
        n += batch.shape[0]
    print('OK', case, n)

if __name__ == '__main__':
    run(sys.argv[1])
