# stands in for dlgo/data/parallel_processor.py: load_go_data() maps work to a Pool
import multiprocessing


def worker(job):
    return job * 2


class GoDataProcessor:
    def load_go_data(self, n=4):
        pool = multiprocessing.Pool(processes=2)
        try:
            return pool.map(worker, range(n))
        finally:
            pool.close()
            pool.join()
