# stands for pyboreas.data.sequence.Sequence and pyboreas.boreas.BoreasDataset
from multiprocessing import Pool


class Sequence:
    def __init__(self, root, seq):
        self.ID = seq
        self.lidar_frames = [seq + "_%d" % i for i in range(2)]


class BoreasDataset:
    def __init__(self, root, split):
        pool = Pool(2)
        self.sequences = list(pool.starmap(Sequence, ((root, s) for s in split)))
        pool.close()
        pool.join()
