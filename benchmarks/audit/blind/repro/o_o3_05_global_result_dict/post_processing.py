# As BMN/BSN post_processing.py: worker writes into global result_dict that only the parent binds via `global`.
import multiprocessing as mp

def video_post_process(opt, video_list, video_dict):
    for name in video_list:
        result_dict[name] = [video_dict[name] * 2]   # BMN :99 / BSN :94

def video_post_process_arg(opt, video_list, video_dict, result_dict):
    for name in video_list:
        result_dict[name] = [video_dict[name] * 2]

def post_processing(opt, case):
    video_dict = {"v_a": 1, "v_b": 2, "v_c": 3, "v_d": 4}
    video_list = list(video_dict)
    global result_dict
    result_dict = mp.Manager().dict()
    n = opt["post_process_thread"]
    per = len(video_list) // n
    processes = []
    for tid in range(n):
        chunk = video_list[tid * per:(tid + 1) * per] if tid < n - 1 else video_list[tid * per:]
        if case == "hazard":
            p = mp.Process(target=video_post_process, args=(opt, chunk, video_dict))
        else:
            p = mp.Process(target=video_post_process_arg, args=(opt, chunk, video_dict, result_dict))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    out = dict(result_dict)
    print("results:", len(out), "of", len(video_dict), "OK" if len(out) == len(video_dict) else "MISSING")
