"""c_c2_03: WaveRNN train_wavernn.py / train_tacotron.py shape: hp.configure() runs in main() under the
guard; DataLoader workers (utils/dataset.py) read hp.

Cases:
  hp_collate   train set: collate_vocoder reads hp.voc_seq_len in the worker          (WSP107)
  hp_getitem   TTSDataset.__getitem__ reads hp.tts_cleaner_names (collate a partial) (WSP107)
  tts_lambda   get_tts_datasets passes collate_fn=lambda batch: collate_tts(batch, r) (WSP201)
  test_set     test loader: VocoderDataset + default collate, no hp read: safe
"""
import sys
from utils import hparams as hp
from utils.dataset import get_vocoder_datasets, get_tts_datasets


def main(case):
    hp.configure("hparams.py")
    ids = list(range(4))
    if case == "hp_collate":
        loader, _ = get_vocoder_datasets(ids)
    elif case == "test_set":
        _, loader = get_vocoder_datasets(ids)
    elif case == "hp_getitem":
        loader = get_tts_datasets(ids, 2, use_lambda=False)
    elif case == "tts_lambda":
        loader = get_tts_datasets(ids, 2)
    else:
        raise SystemExit("unknown case")
    print("batches", sum(1 for _ in loader))


if __name__ == "__main__":
    main(sys.argv[1])
