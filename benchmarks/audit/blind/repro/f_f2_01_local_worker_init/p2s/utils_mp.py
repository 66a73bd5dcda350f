import multiprocessing


def start_process_pool(worker_function, parameters, num_processes):
    if num_processes <= 1:
        return [worker_function(*c) for c in parameters]
    with multiprocessing.Pool(processes=num_processes, maxtasksperchild=1) as pool:
        return pool.starmap(worker_function, parameters)
