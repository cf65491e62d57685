"""Text -> paragraphs with section paths -> chunks (Markdown/LaTeX/plain text, and PDF blocks)."""
