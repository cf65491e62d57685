"""Members only: who is signed in (``users``, the app's OIDC login), what they may
read (``policy``), and the knowledge base as they may read it (``scoped``)."""
