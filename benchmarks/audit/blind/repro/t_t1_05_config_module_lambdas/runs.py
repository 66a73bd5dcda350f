"""config module as in deepdyn testarch/unet/runs.py: module-level lambdas inside config dicts"""
import copy
import numpy as np


def truth_named(file_name):
    return file_name.split('.')[0] + '.ah.pgm'


def dparm_named(x):
    return [1, 1]


dparm_1_100_1 = lambda x: np.random.choice(np.arange(1, 101, 1), 2)

STARE = {
    'Params': {'batch_size': 2},
    'Funcs': {
        'truth_getter': lambda file_name: file_name.split('.')[0] + '.ah.pgm',
        'mask_getter': None,
    },
}
STARE_1_100_1 = copy.deepcopy(STARE)
STARE_1_100_1['Funcs']['dparm'] = dparm_1_100_1

STARE_NAMED = {'Params': {'batch_size': 2}, 'Funcs': {'truth_getter': truth_named, 'mask_getter': None, 'dparm': dparm_named}}

STARE_DPARM_ONLY = {'Params': {'batch_size': 2}, 'Funcs': {'truth_getter': truth_named, 'mask_getter': None, 'dparm': dparm_1_100_1}}
