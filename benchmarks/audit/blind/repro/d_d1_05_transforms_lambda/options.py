import argparse


class Options:
    def parse(self):
        p = argparse.ArgumentParser()
        p.add_argument("case")
        p.add_argument("--cropsize", type=int, default=3)
        p.add_argument("--nThreads", type=int, default=2)
        return p.parse_args()
