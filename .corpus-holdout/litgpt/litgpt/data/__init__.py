# Copyright Lightning AI. Licensed under the Apache License 2.0, see LICENSE file.

from litgpt.data.alpaca import Alpaca
from litgpt.data.alpaca_2k import Alpaca2k
from litgpt.data.alpaca_gpt4 import AlpacaGPT4
from litgpt.data.base import DataModule, SFTDataset, get_sft_collate_fn
from litgpt.data.deita import Deita
from litgpt.data.flan import FLAN
from litgpt.data.json_data import JSON
from litgpt.data.lima import LIMA
from litgpt.data.lit_data import LitData
from litgpt.data.longform import LongForm
from litgpt.data.microllama import MicroLlama
from litgpt.data.openwebtext import OpenWebText
from litgpt.data.text_files import TextFiles
from litgpt.data.tinyllama import TinyLlama
from litgpt.data.tinystories import TinyStories

__all__ = [
    "Alpaca",
    "Alpaca2k",
    "AlpacaGPT4",
    "Deita",
    "FLAN",
    "JSON",
    "LIMA",
    "LitData",
    "DataModule",
    "LongForm",
    "OpenWebText",
    "SFTDataset",
    "TextFiles",
    "TinyLlama",
    "TinyStories",
    "MicroLlama",
    "get_sft_collate_fn",
]
