# stand-in for Hierarchical-Sentiment/fmtl.py: FMTL keeps per-field mappings (functions or dicts) in self.mappings
class FMTL_iterator():
    def __init__(self, fmtl, idxs):
        self.fmtl = fmtl
        self.idxs = idxs

    def __getitem__(self, i):
        return self.fmtl[self.idxs[i]]

    def __len__(self):
        return len(self.idxs)


class FMTL():
    def __init__(self, tuplelist, rows=None):
        self.tuplelist = tuplelist
        self.mappings = {}
        self.rows = {x: i for i, x in enumerate(rows)}

    def __len__(self):
        return len(self.tuplelist)

    def __getitem__(self, index):
        if len(self.mappings) == 0:
            return self.tuplelist[index]
        t = list(self.tuplelist[index])
        for i, m in self.mappings.items():
            if type(m) is dict:
                t[i] = [[m.get(w, 1) for w in s] for s in t[i]]
            else:
                t[i] = m(t[i])
        return tuple(t)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def set_mapping(self, field, mapping):
        self.mappings[self.rows[field]] = mapping
        return mapping

    def indexed_iter(self, idxs):
        return FMTL_iterator(self, idxs)

    def get_field_dict(self, field, iter_func):
        import itertools
        words = itertools.chain.from_iterable(iter_func(x[self.rows[field]] for x in self.tuplelist))
        return {w: i for i, w in enumerate(sorted(set(words)), 2)}
