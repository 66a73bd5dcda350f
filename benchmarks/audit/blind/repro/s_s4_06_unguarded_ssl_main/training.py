def self_supervised_training(loader):
    n = 0
    for (x0, x1), y in loader:
        n += x0.shape[0]
    return n
