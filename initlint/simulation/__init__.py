"""The init simulation: ordered effect events of constructing a class."""
