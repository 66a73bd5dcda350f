# Mimics YOLOP lib/dataset/DemoDataset.py LoadStreams: keeps Thread objects, iterated in the parent only.
import time
from threading import Thread


class LoadStreams:
    def __init__(self, n=2):
        self.frames = [0] * n
        self.threads = [None] * n
        for i in range(n):
            self.threads[i] = Thread(target=self.update, args=(i,), daemon=True)
            self.threads[i].start()

    def update(self, i):
        for _ in range(3):
            self.frames[i] += 1
            time.sleep(0.01)

    def __iter__(self):
        for _ in range(3):
            time.sleep(0.02)
            yield list(self.frames)
