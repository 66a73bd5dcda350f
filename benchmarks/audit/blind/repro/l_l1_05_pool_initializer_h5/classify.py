# mimics scRNA-Dimensionality-Reduction old_work/scripts/nb_multithreaded.py and
# scripts/get_best_dbscan_trial_parallel.py: guarded mp.Pool with module-level functions.
# cases: initializer_open (safe: each worker opens the h5 file in the Pool initializer, path passed)
#        module_func_pool (safe: guarded Pool(10)-style map of a module-level function)
#        handle_as_initarg (hazard twin, WSP302: the open h5py.File itself passed as an initarg)
import sys, os, tempfile
import multiprocessing as mp
import h5py, numpy as np

def initialize_worker(h5file):
    global h5
    h5 = h5file if isinstance(h5file, h5py.File) else h5py.File(h5file, 'r')

def classify_cell(i):
    return int(h5['mm10']['indptr'][i])

def process_tuple(t):
    return t[0] * t[1]

if __name__ == '__main__':
    case = sys.argv[1]
    path = os.path.join(tempfile.gettempdir(), 'l_l1_05.h5')
    with h5py.File(path, 'w') as f:
        f['mm10/indptr'] = np.arange(6)
    if case == 'module_func_pool':
        p = mp.Pool(2)
        print('OK', p.map(process_tuple, [(1, 2), (3, 4)]))
    else:
        h5 = h5py.File(path, 'r')
        ncells = len(h5['mm10']['indptr'])
        arg = path if case == 'initializer_open' else h5
        if case == 'initializer_open':
            del h5
        p = mp.Pool(2, initialize_worker, [arg])
        print('OK', p.map(classify_cell, range(ncells)))
