"""Code domain (in progress): for now only the sandbox that runs untrusted Python, see
``sandbox``. Nothing is registered as a domain yet."""
