"""The package's version, in a module that imports nothing: the engine and the report
stamp it on caches and reports without importing the root package (which imports the API)."""

__version__ = "0.1.0"
