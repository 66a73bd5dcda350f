"""Like TIES_DataGeneration TFGeneration/GenerateTFRecord.py: write_to_tf starts one Process per
thread with a bound method as target; the object keeps only plain values (a Logger with no state,
lists, strings); the unpicklable resource (a selenium driver there, a lock here) is made inside the
worker."""
import threading
from multiprocessing import Process


class Logger:
    def write(self, txt):
        pass


class GenerateTFRecord:
    def __init__(self, outpath, filesize):
        self.outtfpath = outpath
        self.filesize = filesize
        self.logger = Logger()
        self.tables_cat_dist = [filesize // 4] * 4

    def write_tf(self, filesize, threadnum):
        driver = threading.Lock()      # stands for Firefox(options=opts), made in the worker
        with driver:
            print("worker", threadnum, "wrote", filesize, "tables", flush=True)

    def write_to_tf(self, max_threads):
        threads = []
        for threadnum in range(max_threads):
            proc = Process(target=self.write_tf, args=(self.filesize, threadnum))
            proc.start()
            threads.append(proc)
        for proc in threads:
            proc.join()
