voc_seq_len = 4
tts_cleaner_names = ["basic"]
