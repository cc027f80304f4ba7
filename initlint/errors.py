"""Errors every layer may raise for the command line to report (exit 2)."""


class ConfigError(Exception):
    """A bad configuration value; the message names the key and the file."""
