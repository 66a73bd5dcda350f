"""Shape: workers started by a top-level statement with no main guard.
cases:
  optstrategy  - backtrader-like optimiser: Pool.map over parameter sets at import (Python-for-Finance-Cookbook)
  loader_run   - run.py-like script: exp.train() iterates DataLoader(num_workers=2) at import (TimeMixer)
  guarded      - safe twin: same Pool under `if __name__ == "__main__":`
  no_opt       - safe twin: cerebro.run() without optstrategy -> no pool (backtrader_sma_strategy.py)
"""
import sys
import multiprocessing as mp

CASE = sys.argv[1] if len(sys.argv) > 1 else "optstrategy"


def run_strategy(period):
    return period * 2


class Cerebro:
    def __init__(self):
        self.opt = None

    def optstrategy(self, **kw):
        self.opt = list(kw["ma_period"])

    def run(self, maxcpus=None):
        if self.opt and maxcpus != 1:
            with mp.Pool(maxcpus) as pool:
                return pool.map(run_strategy, self.opt)
        return [run_strategy(20)]


class Exp:
    def train(self):
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        ds = TensorDataset(torch.arange(8.0))
        return sum(float(b[0].sum()) for b in DataLoader(ds, batch_size=2, num_workers=2))


if CASE == "optstrategy":
    c = Cerebro()
    c.optstrategy(ma_period=range(10, 14))
    print("result", c.run(maxcpus=2))
elif CASE == "loader_run":
    exp = Exp()
    print("result", exp.train())
elif CASE == "no_opt":
    c = Cerebro()
    print("result", c.run())

if __name__ == "__main__" and CASE == "guarded":
    c = Cerebro()
    c.optstrategy(ma_period=range(10, 14))
    print("result", c.run(maxcpus=2))
