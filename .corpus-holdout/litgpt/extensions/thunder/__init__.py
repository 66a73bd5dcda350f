import sys
from pathlib import Path

# support running without installing as a package, adding extensions to the Python path
wd = Path(__file__).parent.parent.resolve()
sys.path.append(str(wd))
