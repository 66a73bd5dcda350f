import torch

def getLoader(dataset, batchSize=4, workers=1, shuffle=False):
    return torch.utils.data.DataLoader(dataset, batch_size=batchSize, shuffle=shuffle,
                                       num_workers=int(workers))
