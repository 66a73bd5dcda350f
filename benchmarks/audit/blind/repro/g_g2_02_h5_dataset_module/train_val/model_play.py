def train(args, train_loader):
    n = 0
    for i, target in enumerate(train_loader):   # workers start here
        n += target.shape[0]
    return n
