"""Mimics sherpa/app/app.py: a module-level Flask app object (Flask keeps a lambda view
function for /static in its url map, so the app object does not pickle)."""
from flask import Flask


class SherpaApp(Flask):
    def set_results_channel(self, ch):
        self.results_channel = ch


app = SherpaApp(__name__)


@app.route('/')
def index():
    return 'ok'
