"""Alembic migrations of the shared state (``mitra.store.state.upgrade`` runs them).

One branch per concern (``catalog``, ``feedback``, ``conversations``, ``members``), so a
SQLite file holds only its own tables while PostgreSQL holds them all. Add a revision
with ``down_revision`` the branch's head; never edit one that has shipped.
"""
