# mimics TransformerVAE train/train.py: module-level tokenisation through utils.parallel_f (a Pool),
# tokenize/pad read module globals set at top level.
# cases: unguarded (hazard WSP101), guarded (safe twin: same code under the main guard, globals
#        assigned at module level before the guard so workers see them on re-import)
import sys
from utils import parallel_f, get_dic
case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
smi_list = ["CCO", "c1ccccc1", "CC(=O)O", "N#N"]

def tokenize(smi):
    return [0] + [smi_dic[ch] for ch in smi] + [1]
def pad(smi):
    return smi + [2] * (max_len - len(smi))

smi_dic = get_dic(smi_list)
max_len = 10
if case == "unguarded":
    token_list = parallel_f(tokenize, smi_list)
    token_list = parallel_f(pad, token_list)
    print("OK", len(token_list))
elif __name__ == "__main__":
    token_list = parallel_f(tokenize, smi_list)
    token_list = parallel_f(pad, token_list)
    print("OK", len(token_list))
