def train(trainLoader):
    n = 0
    for batch in trainLoader:        # workers start here (K-Space-Transformer train.py:97)
        n += batch.shape[0]
    return n
