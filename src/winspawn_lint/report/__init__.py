"""How findings leave the program: the output formats, SARIF, and ``# noqa`` comments.

Modules: :mod:`.formats`, :mod:`.noqa`, :mod:`.sarif`.
"""
