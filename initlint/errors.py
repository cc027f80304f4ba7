"""Errors every layer may raise for the command line to report (exit 2), and the exit
statuses."""

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class ConfigError(Exception):
    """A bad configuration value; the message names the key and the file."""
