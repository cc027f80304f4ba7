"""initlint: find subclasses that redo expensive work their ancestors' __init__ already did."""

__version__ = "0.1.0"
