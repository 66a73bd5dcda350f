# mimics dev_function.train: iterates the loader it is given
def train(train_loader):
    n = 0
    for batch_index, batch in enumerate(train_loader):
        n += len(batch)
    return n
