# stand-in for Text2SQL src/model/dbengine.py and Notebooks/dbengine.py: DBEngine.__init__ keeps
# records.Database(...) (an SQLAlchemy engine: thread-local state and locks). records/SQLAlchemy are not
# installed here, so _Engine mimics what makes the real one unpicklable (a threading.local and a lock).
import threading


class _Engine:
    def __init__(self, url):
        self.url = url
        self._local = threading.local()
        self._mutex = threading.RLock()


class DBEngine:
    agg_ops = ["", "MAX", "MIN", "COUNT", "SUM", "AVG"]
    cond_ops = ["=", ">", "<", "OP"]

    def __init__(self, db_path, lazy=False):
        self.db_path = db_path
        self.db = None if lazy else _Engine(f"sqlite:///{db_path}")
