__version__ = '4.2.0.dev0'
