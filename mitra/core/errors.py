"""The base of every error whose message is meant for the user, not a traceback, and the
one line for a server MITRA works with that does not answer."""


class MitraError(Exception):
    """Raised with a clear, specific message; the CLI and UI show it as is."""


class ServiceUnavailable(MitraError):
    """A server MITRA works with (the Chroma server, PostgreSQL, a model endpoint) does not answer."""


def unavailable_service(error: BaseException) -> ServiceUnavailable | None:
    """``error`` said in one line when it means a server did not answer, else None: the
    CLI and the app show it as a user error instead of an internal one. Recognised by the
    client libraries' own classes (httpx for the Chroma and model clients, SQLAlchemy's
    OperationalError for PostgreSQL), without importing them here."""
    import httpx

    if isinstance(error, httpx.TransportError):
        try:
            url = error.request.url
            where = f"the server at {url.host}:{url.port}"
        except RuntimeError:  # an error raised before its request was built
            where = "a server"
        return ServiceUnavailable(f"{where} does not answer ({error or type(error).__name__}): is it running? "
                                  "(the Chroma server is MITRA_CHROMA_HOST/_PORT)")
    if isinstance(error, ValueError) and "Could not connect to a Chroma server" in str(error):
        return ServiceUnavailable("the Chroma server (MITRA_CHROMA_HOST/_PORT) does not answer: is it running?")
    if type(error).__name__ == "OperationalError" and type(error).__module__.startswith("sqlalchemy"):
        first = str(getattr(error, "orig", error)).strip().splitlines()[0]
        return ServiceUnavailable(f"the database (MITRA_DATABASE_URL) does not answer: {first}")
    return None
