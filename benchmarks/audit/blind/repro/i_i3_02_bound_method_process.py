"""Shape (peaks2utr): multiprocessing.Process(target=self.method, args=(...)) pickles `self` under spawn.
cases:
  pbar_attr     - `with tqdm(...) as self.pbar:` then Process(target=self._work): tqdm keeps sys.stderr (WSP301)
  sqlite_arg    - a sqlite3 connection (gffutils FeatureDB) passed in args of the Process (WSP302)
  process_list  - self.processes (list of Process objects) is set before p.start(): pickling self pickles a
                  Process (AuthenticationString) (WSP301)
  process_list_one - the same with a single batch (peaks2utr's default -p 1): the only Process in the list is
                  the one being started, which pickles while spawning -> runs
  safe          - (also: a multiprocessing.Queue and a Value+Lock counter kept on the object) path passed, connection opened in the worker, pbar/processes not on the object"""
import multiprocessing, sqlite3, sys, os, tempfile
from tqdm import tqdm


class FeatureDB:
    def __init__(self, path):
        self.conn = sqlite3.connect(path, check_same_thread=False)


class Splitter:
    def __init__(self):
        self.pbar = None
        self.q = multiprocessing.Queue()

    def _work(self, a, b):
        self.q.put(a + b)

    def run_pbar(self):
        with tqdm(total=2, disable=False) as self.pbar:
            p = multiprocessing.Process(target=self._work, args=(1, 2))
            p.start(); p.join()
        return p.exitcode


class Counter:
    def __init__(self):
        self.val = multiprocessing.Value('i', 0)
        self.lock = multiprocessing.Lock()


class Pipeline:
    def __init__(self, db_path, with_list=True, pass_conn=True, batches=([1, 2], [3, 4])):
        self.counter = Counter()  # multiprocessing Value + Lock: pickled while spawning the Process, fine
        self.batches = batches
        self.db_path = db_path
        self.with_list = with_list
        self.pass_conn = pass_conn
        self.q = multiprocessing.Queue()

    def _batch(self, batch):
        db = FeatureDB(self.db_path) if self.pass_conn else self.db_path
        return multiprocessing.Process(target=self._iter, args=(db, batch))

    def _iter(self, db, batch):
        if isinstance(db, str):
            db = FeatureDB(db)
        with self.counter.lock:
            self.counter.val.value += 1
        self.q.put(sum(batch))

    def start(self):
        procs = [self._batch(b) for b in self.batches]
        if self.with_list:
            self.processes = procs
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        return [p.exitcode for p in procs]


def main(case):
    d = tempfile.mkdtemp(); path = os.path.join(d, "x.db")
    sqlite3.connect(path).close()
    if case == "pbar_attr":
        print("exit", Splitter().run_pbar())
    elif case == "sqlite_arg":
        print("exit", Pipeline(path, with_list=False, pass_conn=True).start())
    elif case == "process_list":
        print("exit", Pipeline(path, with_list=True, pass_conn=False).start())
    elif case == "process_list_one":
        print("exit", Pipeline(path, with_list=True, pass_conn=False, batches=([1, 2, 3, 4],)).start())
    elif case == "safe":
        s = Splitter(); p = multiprocessing.Process(target=s._work, args=(1, 2)); p.start(); p.join()
        print("exit", p.exitcode, Pipeline(path, with_list=False, pass_conn=False).start())
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
