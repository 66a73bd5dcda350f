"""Mimics train.py (guarded) / test.py (num_threads=0). Cases:
  scale_width       unaligned + --preprocess scale_width, num_threads 4 -> spawn: Can't pickle local object 'get_transform.<locals>.<lambda>'
  none              unaligned + --preprocess none                       -> same
  resize_and_crop   unaligned + default preprocess (no lambda)          -> ok
  aligned_params    aligned: lambdas built inside __getitem__           -> ok
  clevr_method      clevr: bound method transform                       -> ok
  test_zero_workers unaligned + scale_width but num_threads = 0         -> ok
"""
import sys
from types import SimpleNamespace
from data import create_dataset

if __name__ == '__main__':
    case = sys.argv[1]
    opt = SimpleNamespace(dataset_mode='unaligned', preprocess='resize_and_crop', load_size=4, num_threads=4)
    if case == 'scale_width':
        opt.preprocess = 'scale_width'
    elif case == 'none':
        opt.preprocess = 'none'
    elif case == 'aligned_params':
        opt.dataset_mode = 'aligned'
    elif case == 'clevr_method':
        opt.dataset_mode = 'clevr'
    elif case == 'test_zero_workers':
        opt.preprocess = 'scale_width'
        opt.num_threads = 0
    dataset = create_dataset(opt)
    for i, data in enumerate(dataset):
        pass
    print("OK", case, tuple(data['A'].shape))
