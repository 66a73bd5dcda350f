"""Safe twin: nothing heavy at import; the tokenizer is built under the main guard and handed to the dataset."""
MAX_LEN = 4
