"""App. B's corpora: where the six are found and how they are checked (``corpora``), where they come from
(``sources``), tokens and splits (``tokens``), pins and provenance (``provenance``), and the data-side
predictors and operators of B.2 and B.4 (``predictors``, ``operators``). Knows no section."""
