class Algorithm:
    def __init__(self):
        self._fee_estimate = lambda x: x * .04 + 10   # like pybacktester algorithm.py:14


class PlainAlgorithm:
    def __init__(self):
        self._fee = .04
