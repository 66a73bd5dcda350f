# f_f2_03: unguarded scripts that build a loader in another module and load a model at import.
# cases: test_unguarded (hazard: Pose-Transfer test.py, top-level `for i, data in enumerate(dataset)`, nThreads=1;
#          create_model (torch.load) at import is repeated in the worker -> WSP101 + WSP103),
#        train_unguarded (hazard: Pose-Transfer train.py, `for epoch` > `for i, data in enumerate(dataset)`, nThreads=2),
#        call_unguarded (hazard: DOPE CoRL/train.py, module-level `for epoch` calls _runnetwork(epoch, loader)),
#        guarded (safe twin: the same statements under `if __name__ == '__main__':`).
# The parent prints how many processes ran create_model (marker file).
import atexit
import multiprocessing
import os
import sys
import types
from data.custom_dataset_data_loader import CreateDataLoader
from models.models import create_model, MARK

case = sys.argv[1]
if 'F_F2_03_PARENT' not in os.environ:          # the first process only (children inherit the variable)
    os.environ['F_F2_03_PARENT'] = str(os.getpid())
    if os.path.exists(MARK):
        os.remove(MARK)
    atexit.register(lambda: print('create_model ran in', len(open(MARK).read().split()) if os.path.exists(MARK) else 0, 'process(es)'))

opt = types.SimpleNamespace(nThreads=1 if case == 'test_unguarded' else 2, batchSize=1, serial_batches=True,
                            resize_or_crop='no')


def _runnetwork(epoch, train_loader):
    n = 0
    for batch_idx, targets in enumerate(train_loader):
        n += 1
    return n


if case == 'test_unguarded':
    data_loader = CreateDataLoader(opt)
    dataset = data_loader.load_data()
    model = create_model(opt)
    for i, data in enumerate(dataset):
        model(data.view(1, 4))
    print('OK')
elif case == 'train_unguarded':
    data_loader = CreateDataLoader(opt)
    dataset = data_loader.load_data()
    model = create_model(opt)
    for epoch in range(1, 3):
        for i, data in enumerate(dataset):
            model(data.view(1, 4))
    print('OK')
elif case == 'call_unguarded':
    model = create_model(opt)
    trainingdata = CreateDataLoader(opt).dataloader
    for epoch in range(1, 3):
        _runnetwork(epoch, trainingdata)
    print('OK')
elif case == 'guarded':
    if __name__ == '__main__':
        data_loader = CreateDataLoader(opt)
        dataset = data_loader.load_data()
        model = create_model(opt)
        for i, data in enumerate(dataset):
            model(data.view(1, 4))
        print('OK')
else:
    raise SystemExit('unknown case')
