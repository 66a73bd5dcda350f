# mimics TransformerVAE train/utils.py: a helper that starts a Pool
import multiprocessing
def parallel_f(f, input_list):
    pool = multiprocessing.Pool(2)
    return pool.map(f, input_list)
def get_dic(smi_list):
    dic = {'<START>': 0, '<END>': 1, '<PAD>': 2}
    for smi in smi_list:
        for ch in smi:
            dic.setdefault(ch, len(dic))
    return dic
