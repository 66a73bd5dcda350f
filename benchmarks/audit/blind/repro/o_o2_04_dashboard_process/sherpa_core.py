"""Mimics sherpa/core.py Study.__init__/_run_web_server: a Manager and a daemon
Process(target=app.run, ...) started when the Study is created (dashboard on by default)."""
import multiprocessing


def _serve(port):  # safe twin: module-level target that imports the app in the child
    from app import app
    with app.test_client() as c:
        assert c.get('/').data == b'ok'


class Study:
    def __init__(self, disable_dashboard=False, safe_target=False):
        if not disable_dashboard:
            self._mgr = multiprocessing.Manager()
            self._results_channel = self._mgr.Namespace()
            self._stopping_channel = multiprocessing.Queue()
            self.dashboard_process = self._run_web_server(0, safe_target)

    def _run_web_server(self, port, safe_target):
        from app import app
        app.set_results_channel(self._results_channel)
        if safe_target:
            proc = multiprocessing.Process(target=_serve, args=(port,))
        else:
            proc = multiprocessing.Process(target=app.run,
                                           kwargs={'port': port, 'debug': False,
                                                   'use_reloader': False, 'host': '127.0.0.1'})
        proc.daemon = True
        proc.start()
        return proc

    def __iter__(self):
        return iter(range(2))
