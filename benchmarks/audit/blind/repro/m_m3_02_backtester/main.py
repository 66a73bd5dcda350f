"""Shape: object sent as Process args keeps a lambda attribute (pybacktester).
cases:
  algo_lambda      - Controller._algorithm (other module) keeps a lambda -> Process(args=(q, c))
  orderapi_lambda  - Controller._order_api keeps a lambda (same module)
  logger_only      - safe twin: Controller keeps only a logging.Logger and plain objects (loggers pickle by name)
  parent_lambda    - safe twin: lambda used only in the parent (tests.py cur_time)
"""
import sys
import logging
from multiprocessing import Process, Queue
from algorithm import Algorithm, PlainAlgorithm

CASE = sys.argv[1] if len(sys.argv) > 1 else "algo_lambda"


class OrderApi:
    def __init__(self, with_lambda):
        self._fee = .02
        if with_lambda:
            self._calculate_fee = lambda x: self._fee * abs(x) + 10


class Controller:
    def __init__(self, algorithm, order_api):
        self._logger = logging.getLogger(__name__)
        self._algorithm = algorithm
        self._order_api = order_api

    @classmethod
    def backtest(cls, queue, controller):
        while True:
            o = queue.get()
            if o == "POISON":
                break
            controller._logger.debug(o)
        print("worker done")


if __name__ == "__main__":
    if CASE == "parent_lambda":
        cur = lambda: "2020-01-01"
        print("result", cur())
        sys.exit(0)
    algo = Algorithm() if CASE == "algo_lambda" else PlainAlgorithm()
    api = OrderApi(with_lambda=(CASE == "orderapi_lambda"))
    q = Queue()
    c = Controller(algo, api)
    p1 = Process(target=Controller.backtest, args=(q, c))
    p1.start()
    q.put((1, "AAPL", 1.0)); q.put("POISON")
    p1.join()
    print("result exit", p1.exitcode)
