"""``mitra mcp``: MITRA's answers, routing and passages as an MCP server, each call read as
the member who makes it and written to the audit trail (``server.py``: the tools and
resources; ``reads.py``: what each one reads; ``identity.py`` and ``oidc.py``: who calls;
``limits.py``: what one call and one token may ask)."""
