"""Stand-in for sentiment-discovery data_utils/loaders.py: a ShardLoader whose iterator starts
multiprocessing.Process workers (target = the batch sampler's bound method) when num_workers > 0."""
import multiprocessing


class BatchShardSampler:
    def __init__(self, data_source, batch_size):
        self.data_source = data_source
        self.batch_size = batch_size

    def manage_queues_multiproc(self, indices, out_q):
        for i in indices:
            out_q.put(self.data_source[i])
        out_q.put(None)


class ShardLoader:
    def __init__(self, dataset, batch_size=4, num_workers=0):
        self.batch_sampler = BatchShardSampler(dataset, batch_size)
        self.num_workers = num_workers

    def __iter__(self):
        n = len(self.batch_sampler.data_source)
        if self.num_workers == 0:
            for i in range(n):
                yield self.batch_sampler.data_source[i]
            return
        ctx = multiprocessing.get_context()
        queues, workers = [], []
        for w in range(self.num_workers):
            q = ctx.Queue()
            p = ctx.Process(target=self.batch_sampler.manage_queues_multiproc,
                            args=(list(range(w, n, self.num_workers)), q), daemon=True)
            p.start()
            queues.append(q)
            workers.append(p)
        for q in queues:
            while True:
                item = q.get(timeout=30)
                if item is None:
                    break
                yield item
        for p in workers:
            p.join()
