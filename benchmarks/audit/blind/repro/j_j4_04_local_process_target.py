"""Shape: super-resolution-adversarial-defense src/utility.py checkpoint.begin_background: a local bg_target
function is the target of multiprocessing.Process (8 of them, with --save_results).
Cases: hazard (local target), safe (module-level target)."""
import sys
from multiprocessing import Process, Queue

def bg_target_global(queue):
    while True:
        item = queue.get()
        if item is None: break

class Checkpoint:
    def __init__(self, local): self.local = local; self.n_processes = 2
    def begin_background(self):
        self.queue = Queue()
        def bg_target(queue):
            while True:
                item = queue.get()
                if item is None: break
        target = bg_target if self.local else bg_target_global
        self.process = [Process(target=target, args=(self.queue,)) for _ in range(self.n_processes)]
        for p in self.process: p.start()
    def end_background(self):
        for _ in range(self.n_processes): self.queue.put(None)
        for p in self.process: p.join()

if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
    ckp = Checkpoint(local=(case == "hazard"))
    ckp.begin_background()
    ckp.queue.put(("x", 1))
    ckp.end_background()
    print("ok")
