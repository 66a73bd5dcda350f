"""r04: an instance of a class defined inside a function reaches workers (WSP203), versus a class
nested in a class body (detectron2 AsyncPredictor._PredictWorker shape), which pickles by qualname.

Cases: local_dataset = Dataset class defined in main() given to DataLoader(num_workers=2);
local_from_factory = the class comes from a factory function; nested_in_class = Process subclass
nested in a class body, started under spawn.
"""
import multiprocessing as mp
import sys

from torch.utils.data import DataLoader, Dataset


def make_dataset():
    class Squares(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return i * i

    return Squares()


class Predictor:
    class _Worker(mp.Process):
        def __init__(self, queue):
            self.queue = queue
            super().__init__()

        def run(self):
            self.queue.put("worker ok")


def main(case):
    if case == "local_dataset":
        class Squares(Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, i):
                return i * i

        loader = DataLoader(Squares(), batch_size=4, num_workers=2)
        print("sum", sum(b.sum().item() for b in loader))
    elif case == "local_from_factory":
        loader = DataLoader(make_dataset(), batch_size=4, num_workers=2)
        print("sum", sum(b.sum().item() for b in loader))
    elif case == "nested_in_class":
        queue = mp.Queue()
        worker = Predictor._Worker(queue)
        worker.start()
        print(queue.get(timeout=30))
        worker.join()


if __name__ == "__main__":
    main(sys.argv[1])
