"""The base of every error whose message is meant for the user, not a traceback."""


class MitraError(Exception):
    """Raised with a clear, specific message; the CLI and UI show it as is."""
