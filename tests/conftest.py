import sys
from pathlib import Path

TESTS_DIR = str(Path(__file__).resolve().parent)
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)  # `from fixture_spec import ...`

# `pytester` runs inline test files in a subprocess (tests of our pytest plugin).
pytest_plugins = ["pytester"]
