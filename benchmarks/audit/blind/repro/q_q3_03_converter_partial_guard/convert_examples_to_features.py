# stand-in for BERT_binary_text_classification/convert_examples_to_features.py (module-level worker function)
class InputFeatures(object):
    def __init__(self, input_ids, label_id):
        self.input_ids = input_ids
        self.label_id = label_id


def convert_example_to_feature(example_row):
    example, label_map, max_seq_length, tokenizer, output_mode = example_row
    ids = [tokenizer.get(w, 0) for w in example.split()][:max_seq_length]
    return InputFeatures(ids, label_map[output_mode])
