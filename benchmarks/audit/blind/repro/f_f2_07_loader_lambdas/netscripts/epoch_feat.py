def epoch_pass(loader):
    n = 0
    for batch_idx, sample in enumerate(loader):
        n += sample.shape[0]
    return n
