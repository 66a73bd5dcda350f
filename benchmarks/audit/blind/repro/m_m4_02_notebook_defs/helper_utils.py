"""stands in for chapter4_CNN/utils.py (train() iterates the loaders it is given)."""


def train(train_data, num_epochs=1):
    n = 0
    for _ in range(num_epochs):
        for x, y in train_data:
            n += len(y)
    return n
