"""An analysis at a glance, built when it is indexed: what it is, what it found (its headline
values with their qualifiers, each cited), how its documents are organised, its vocabulary, and
where to start. Extractive: every line is a document's own words."""
