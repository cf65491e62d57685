"""The shared state's tables, on one SQLAlchemy ``MetaData``: the catalog, feedback,
conversations, and (in PostgreSQL only) users, the access policy, the audit trail and the
index blobs of the cluster form.

Timestamps are ISO-8601 UTC text wherever the embedded SQLite form keeps the table too,
so one query serves both back ends and the text sorts as the time does; the audit
trail, PostgreSQL only, has a real timestamp to filter on. ``mitra.store.migrations``
creates and upgrades these tables: a change here needs a migration there.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger, Boolean, CheckConstraint, Column, DateTime, Float, ForeignKey, Identity, Integer, LargeBinary, MetaData,
    Table, Text,
)

metadata = MetaData()

# ---------------------------------------------------------------- catalog (mitra.store.catalog)
meta = Table("meta", metadata, Column("key", Text, primary_key=True), Column("value", Text, nullable=False))
analyses = Table(
    "analyses", metadata,
    Column("id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("abstract", Text, nullable=False),
    Column("experiment", Text),
    Column("metadata", Text, nullable=False),  # JSON
    Column("collection", Text, nullable=False),
    Column("updated_at", Text, nullable=False),
)
documents = Table(
    "documents", metadata,
    Column("analysis_id", Text, primary_key=True),
    Column("doc_id", Text, primary_key=True),
    Column("version", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("source", Text, nullable=False),
    Column("sha256", Text, nullable=False),
    Column("pages", Integer),
    Column("n_chunks", Integer, nullable=False),
    Column("superseded", Integer, nullable=False),  # 0/1: the type older SQLite catalogs have
    Column("indexed_at", Text, nullable=False),
    Column("format", Text, nullable=False, server_default=""),
    Column("coverage", Float),
    Column("dropped", Text, nullable=False, server_default="{}"),  # JSON
    Column("kept", Text, nullable=False, server_default=""),
    Column("coverage_by_kind", Text, nullable=False, server_default="{}"),  # JSON
)

# ---------------------------------------------------------------- feedback (mitra.evaluation.feedback)
feedback = Table(
    "feedback", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", Text, nullable=False),
    Column("analysis_id", Text, nullable=False),
    Column("question", Text, nullable=False),
    Column("standalone", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("cited_chunk_ids", Text, nullable=False),  # JSON
    Column("rating", Integer, CheckConstraint("rating IN (-1, 1)"), nullable=False),
    Column("reason", Text, nullable=False, server_default=""),
    sqlite_autoincrement=True,
)

# ---------------------------------------------------------------- conversations (mitra.store.conversations)
conversations = Table(
    "conversations", metadata,
    Column("id", Text, primary_key=True),
    Column("owner", Text, nullable=False, index=True),
    Column("title", Text, nullable=False),
    Column("created_at", Text, nullable=False),
    Column("updated_at", Text, nullable=False),
)
turns = Table(
    "turns", metadata,
    Column("conversation_id", Text, ForeignKey("conversations.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("created_at", Text, nullable=False),
    Column("analysis_id", Text, nullable=False),
    Column("analysis_title", Text, nullable=False),
    Column("question", Text, nullable=False),
    Column("standalone", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("citations", Text, nullable=False),  # JSON list of {n, label, chunk_id}
    Column("error", Text),
    Column("shown", Text),  # JSON: what the member was shown with the answer (conversations_0002)
)

# ---------------------------------------------------------------- members (PostgreSQL; files when embedded)
users = Table(
    "users", metadata,
    Column("name", Text, primary_key=True),
    Column("hash", Text, nullable=False),
    Column("groups", Text, nullable=False),  # JSON list
    Column("admin", Boolean, nullable=False),
)
access_policy = Table(
    "access_policy", metadata,
    Column("id", Integer, primary_key=True),  # one row: the policy in force
    Column("body", Text, nullable=False),  # JSON, validated by AccessPolicy
    Column("updated_at", Text, nullable=False),
)
audit = Table(
    "audit", metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("ts", DateTime(timezone=True), nullable=False, index=True),
    Column("event", Text, nullable=False),
    Column("user", Text, nullable=False, index=True),
    Column("analysis", Text),
    Column("record", Text, nullable=False),  # the whole event as JSON, as the file trail writes it
)

# ---------------------------------------------------------------- tokens (mitra.access.tokens)
api_tokens = Table(
    "api_tokens", metadata,
    Column("id", Text, primary_key=True),  # the public part, named in listings and by `revoke`
    Column("user", Text, nullable=False, index=True),
    Column("label", Text, nullable=False),
    Column("hash", Text, nullable=False, unique=True),  # SHA-256 of the whole token: never the token itself
    Column("created_at", Text, nullable=False),
    Column("revoked_at", Text),
)

# ---------------------------------------------------------------- index blobs (mitra.store.index_files; cluster form)
index_blobs = Table(
    "index_blobs", metadata,
    Column("kind", Text, primary_key=True),  # bm25 | dense | passages | model | evidence
    Column("name", Text, primary_key=True),  # the generation's collection, abstracts, or an evidence state / segment
    Column("stamp", Text, nullable=False),  # new on every save: what replicas cache by
    Column("data", LargeBinary, nullable=False),  # the index directory as an uncompressed tar
    Column("created_at", Text, nullable=False),
)
