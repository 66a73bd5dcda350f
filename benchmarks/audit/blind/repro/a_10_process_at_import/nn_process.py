"""Helper starting a server process (img2poem code/src/nn_process.py after its pickle fix: the target is
a module-level function, the arguments a Pipe end and a module name)."""
import multiprocessing


def pipe_process(pipe, name):
    pipe.send("ready " + name)
    while True:
        data = pipe.recv()
        if data is None:
            break
        pipe.send(data * 2)


def create(name):
    parent, child = multiprocessing.Pipe()
    proc = multiprocessing.Process(target=pipe_process, args=(child, name), daemon=True)
    proc.start()
    print(parent.recv())

    def handle(x):                      # local closure returned to the caller, never sent to the process
        parent.send(x)
        return parent.recv()
    return handle
