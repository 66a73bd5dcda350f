"""Mimics ENCAS nat.py NAT._train: lambdas (engine factories, arch selectors) are dill-dumped to a
file and only the file path is submitted to a ProcessPoolExecutor(max_workers=1) whose target and
initializer are static methods. Cases: dill_file (safe), direct_lambda (hazard twin: the lambda
itself is submitted)."""
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

import dill


class NAT:
    @staticmethod
    def _init_subprocess(tag):
        os.environ['O2_TAG'] = tag

    @staticmethod
    def _train_stateless(path):
        with open(path, 'rb') as f:
            select, n = dill.load(f)
        return sum(1 for a in range(n) if select(a))

    def train(self, case):
        select = [lambda arch: arch % 2 == 0][0]
        pool = ProcessPoolExecutor(max_workers=1, initializer=NAT._init_subprocess, initargs=('x',))
        if case == 'dill_file':
            path = os.path.join(tempfile.mkdtemp(), 'dump.pkl')
            with open(path, 'wb') as f:
                dill.dump((select, 10), f)
            out = pool.submit(NAT._train_stateless, path).result()
        else:
            out = pool.submit(select, 4).result()
        pool.shutdown()
        return out


if __name__ == '__main__':
    case = sys.argv[1] if len(sys.argv) > 1 else 'dill_file'
    print('OK', case, NAT().train(case))
