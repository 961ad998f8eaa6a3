"""The engine, knowing no section, results store or book: the shared measures at its root (``spectral``, the
spectral measures of eqs. 1–3 and Theorem 8; ``statistics``, correlations and permutation tests), ``synthetic``
(the paper's tasks, batched students, training, estimators and theorems), ``lm`` and ``corpus`` (App. B's
char-level model and its six corpora). Every module is a plain library that the sections call.
"""
