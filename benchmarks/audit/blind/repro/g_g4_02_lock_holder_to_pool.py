# Shapes: an object holding a lock/client reaches a multiprocessing.Pool / Process.
# lock_bound_method  (WSP302, SpamMessage token_and_save_to_file.py:41: Pool().map(jieba.lcut, data),
#                     jieba.lcut is a bound method of a Tokenizer that keeps threading.RLock)
# client_attr        (WSP301, DriveLM gpt_eval.py:13: self.client = OpenAI(...) in __init__,
#                     Pool.map(self.chatgpt_eval.forward, data))
# module_func        (safe, SpamMessage judgeSpamMessage.py:67 / test_jieba.py:30: module-level function)
# local_def_parent   (safe, SpamMessage test_judge.py:19: nested def only called in the parent)
# manager_dict       (safe, MetaICL _build_gym.py:97: Manager().dict() proxy passed to Process)
# wraps_decorator    (safe, MMSA-FET dataset.py:70: @functools.wraps-decorated pool function)
# dummy_pool_local_def (safe, SSL4EO-S12 ssl4eo_s12_downloader.py:639: multiprocessing.dummy Pool)
# thread_local_def   (safe, Applio extract.py:128: local def submitted to a ThreadPoolExecutor)
import concurrent.futures
import functools
import sys
import threading
from multiprocessing import Manager, Pool, Process


class Tokenizer:  # stands for jieba.Tokenizer
    def __init__(self):
        self.lock = threading.RLock()

    def lcut(self, s):
        return s.split()


dt = Tokenizer()
lcut = dt.lcut  # jieba exposes lcut = dt.lcut


class Client:  # stands for openai.OpenAI (httpx client with locks)
    def __init__(self):
        self._lock = threading.RLock()


class GPTEvaluation:
    def __init__(self):
        self.client = Client()

    def forward(self, data):
        return len(data)


def token(x):
    return len(lcut(x))


def handle_ctrl_c(func):
    @functools.wraps(func)
    def wrapper(*a, **k):
        return func(*a, **k)
    return wrapper


@handle_ctrl_c
def extract_one(x):
    return x * 2


def process_tasks(idx, tasks, fail_dict):
    fail_dict[idx] = [t for t in tasks if t < 0]


def main(case):
    data = ["a b", "c d e", "f"]
    if case == "lock_bound_method":
        with Pool(2) as p:
            print(p.map(lcut, data))
    elif case == "client_attr":
        ev = GPTEvaluation()
        with Pool(2) as p:
            print(p.map(ev.forward, data))
    elif case == "module_func":
        with Pool(2) as p:
            print(p.map(token, data))
    elif case == "local_def_parent":
        def read_train_data():
            return data, [0, 1, 0]
        d, t = read_train_data()
        with Pool(2) as p:
            print(p.map(token, d))
    elif case == "manager_dict":
        fail_dict = Manager().dict()
        ps = [Process(target=process_tasks, args=(i, [i, -i], fail_dict)) for i in range(2)]
        for q in ps:
            q.start()
        for q in ps:
            q.join()
        assert all(q.exitcode == 0 for q in ps)
        print(dict(fail_dict))
    elif case == "wraps_decorator":
        with Pool(2) as p:
            print(list(p.imap_unordered(extract_one, range(4))))
    elif case == "thread_local_def":
        model = Client()

        def worker(f):
            return (f, model is not None)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
            print([f.result() for f in [ex.submit(worker, x) for x in data]])
    elif case == "dummy_pool_local_def":
        # SSL4EO-S12 download_data/ssl4eo_s12_downloader.py:639: local def worker mapped by
        # multiprocessing.dummy.Pool (threads) -> nothing pickled
        from multiprocessing.dummy import Pool as ThreadPool, Lock
        counter_lock = Lock()

        def worker(idx):
            with counter_lock:
                return idx * 2
        with ThreadPool(processes=2) as p:
            print(p.map(worker, range(4)))
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
