"""Mimics Attention_ocr core/train_engine.py / mongolian train(): a function that iterates the loader."""
def fit(loader, epochs=1):
    n = 0
    for _ in range(epochs):
        for batch in loader:
            n += 1
    return n
