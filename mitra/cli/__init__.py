"""The `mitra` command line, one module per topic; stage packages register more commands."""
