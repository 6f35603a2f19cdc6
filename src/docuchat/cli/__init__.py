"""The ``docuchat`` command line."""
