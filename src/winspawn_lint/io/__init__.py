"""Files in and out: which files to check, reading and decoding them, writing fixes back safely.

Modules: :mod:`.cache`, :mod:`.discover`, :mod:`.notebook`, :mod:`.source`, :mod:`.write`.
"""
