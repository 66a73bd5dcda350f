def train(train_dataloader, test_dataloader, epochs):
    total = 0.0
    for _ in range(epochs):
        total += sum(b.sum().item() for (b,) in train_dataloader)
        total += sum(b.sum().item() for (b,) in test_dataloader)
    return total
