# mimics tool/toolkits.py set_mp() of WeidiXie/VGG-Speaker-Recognition: a local init_worker as Pool initializer
import multiprocessing as mp
import signal


def _init_worker_global():  # safe twin
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def set_mp(processes=2, local=True):
    def init_worker():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return mp.Pool(processes=processes, initializer=init_worker if local else _init_worker_global)


def load_data(x):  # module-level task function (like utils.load_data)
    return x * 2
