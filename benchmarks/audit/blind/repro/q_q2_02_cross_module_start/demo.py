"""q2 shape 02: unguarded driver whose top-level call starts DataLoader workers two modules away
(deep-active-learning demo.py:46, active_learning_course main.py:85).
cases: hazard (top-level strategy.train()), safe (same under the main guard)."""
import sys
import torch
from handlers import MNIST_Handler
from nets import Net
from strategy import Strategy
from utils import params

case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
dataset = MNIST_Handler(torch.randn(32, 4), torch.randint(0, 10, (32,)))
strategy = Strategy(dataset, Net(params["MNIST"]))

if case == "hazard":
    strategy.train()

if __name__ == "__main__" and case == "safe":
    strategy.train()
