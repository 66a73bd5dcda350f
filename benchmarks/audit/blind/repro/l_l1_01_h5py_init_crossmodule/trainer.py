from data_util import construct_loader
def fit(filename, lazy, num_workers=None):
    loader = construct_loader(filename, lazy, num_workers)
    n = 0
    for batch in loader:
        n += len(batch)
    return n
