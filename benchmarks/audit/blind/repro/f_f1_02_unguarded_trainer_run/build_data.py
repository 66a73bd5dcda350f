import os, sys, time


def get_data():
    # stands in for JointCwsParser get_data(): pipe + pretrained embeddings (cached pickle)
    print(f"BUILD DATA in pid {os.getpid()}", flush=True)
    time.sleep(0.2)
    return ["abcd", "efgh", "ijkl", "mnop"]
