"""Shape (prometheus-anomaly-detector app.py:179): Process(target=tornado.ioloop.IOLoop.instance().start)
- the bound method carries the IOLoop (asyncio loop, selector, local functions) to the child.
cases: hazard (bound method of a live IOLoop as target), safe (module-level target that builds its loop in the child)."""
import sys
from multiprocessing import Process
import tornado.ioloop


def serve():
    loop = tornado.ioloop.IOLoop.current()
    loop.call_later(0.1, loop.stop)
    loop.start()
    print("child served")


if __name__ == "__main__":
    case = sys.argv[1] if len(sys.argv) > 1 else "hazard"
    if case == "hazard":
        loop = tornado.ioloop.IOLoop.current()
        loop.call_later(0.1, loop.stop)
        p = Process(target=loop.start)
    else:
        p = Process(target=serve)
    p.start()
    p.join(20)
    print("exitcode", p.exitcode)
