# f_f2_02: pytorch-superpoint shape (train4.py guarded; loader and dataset in other modules).
# cases: pool_attr (hazard WSP301: SyntheticDataset_gaussian keeps multiprocessing.Pool(6) on self.pool,
#        magicpoint_shapes_pair.yaml sets no workers_train -> default 1),
#        module_fns (safe: Coco keeps module-level functions as attributes; worker_init_fn is module-level)
import sys
from utils.loader import dataLoader
from Train_model_frontend import Train_model_frontend

if __name__ == '__main__':
    case = sys.argv[1]
    if case == 'pool_attr':
        config = {'data': {'dataset': 'SyntheticDataset_gaussian'}}          # no 'training' section
        data = dataLoader(config, dataset='SyntheticDataset_gaussian')
    elif case == 'module_fns':
        config = {'data': {'dataset': 'Coco'}, 'training': {'workers_train': 2}}
        data = dataLoader(config, dataset='Coco')
    else:
        raise SystemExit('unknown case')
    print('batches', Train_model_frontend(data).train())
    if case == 'pool_attr':
        data['train_set'].pool.terminate()
    print('OK')
