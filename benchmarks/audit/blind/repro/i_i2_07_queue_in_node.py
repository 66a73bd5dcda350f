"""Shape of SACLabs/TransWorldNG: game/core/node.py Node.__init__ stores two queue.Queue objects (each
holds a _thread.lock); Controller keeps the Nodes, Graph keeps the Controller, and the DataLoader subclass
of game/data/dataloader.py keeps operation_fn=graph.operate and passes collate_fn=self.collate (a bound
method, so the whole loader, graph included, is pickled for each worker; num_workers=1 in run()).
Cases: hazard (queue.Queue in Node.__init__), deque (safe twin: collections.deque(maxlen=...) instead)."""
import sys
from collections import deque
from queue import Queue
import torch

CASE = sys.argv[1]


class Node:
    def __init__(self, name):
        self.name = name
        if CASE == "hazard":
            self.address_timestamp_queue = Queue(maxsize=4)
        else:
            self.address_timestamp_queue = deque(maxlen=4)


class Controller:
    def __init__(self):
        self.process_table = {n: Node(n) for n in ("veh0", "lane0")}

    def retrieve_alive_node(self, ts):
        return list(self.process_table)


class Graph:
    def __init__(self):
        self.controller = Controller()

    def operate(self, operation_type, operator, operation_list):
        return self.controller.retrieve_alive_node(operation_list)


class Dataset(torch.utils.data.IterableDataset):
    def __init__(self, timestamps):
        self.dataset = list(timestamps)

    def __iter__(self):
        yield from self.dataset


class DataLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, operation_fn, **kwargs):
        self.operation_fn = operation_fn
        super().__init__(dataset, collate_fn=self.collate, **kwargs)

    def collate(self, batch):
        return self.operation_fn("alive_node", "retrieve", batch)


def run():
    graph = Graph()
    loader = DataLoader(Dataset([0.0, 1.0, 2.0, 3.0]), graph.operate, batch_size=2, num_workers=1)
    for _ in loader:
        pass
    print("OK", CASE)


if __name__ == "__main__":
    run()
