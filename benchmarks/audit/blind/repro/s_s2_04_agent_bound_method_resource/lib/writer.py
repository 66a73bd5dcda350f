"""Stand-in for torch.utils.tensorboard.SummaryWriter (tensorboard is not installed here): like its
EventFileWriter it owns a queue, a lock and a background flushing thread."""
import queue
import threading


class SummaryWriter:
    def __init__(self, logdir):
        self.logdir = logdir
        self._queue = queue.Queue()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            item = self._queue.get()
            if item is None:
                break

    def add_scalar(self, tag, value, step):
        with self._lock:
            self._queue.put((tag, value, step))
