"""Golden playthrough files (``*.txt``) and the code that writes them: see :mod:`.playthrough`."""
