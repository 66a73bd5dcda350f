import multiprocessing as mp


def expandCall(kargs):
    func = kargs['func']
    del kargs['func']
    return func(**kargs)


def processJobs(jobs, numThreads=2, expand=expandCall):
    pool = mp.Pool(processes=numThreads)
    out = list(pool.imap_unordered(expand, jobs))
    pool.close(); pool.join()
    return out


def mpNumCoEvents(molecule):
    return sum(molecule)


def mpPandasObj(func, pdObj, numThreads=2):
    jobs = [{pdObj[0]: pdObj[1][i::numThreads], 'func': func} for i in range(numThreads)]
    return processJobs(jobs, numThreads=numThreads)
