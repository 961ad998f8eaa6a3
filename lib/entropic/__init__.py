"""entropic: an executable reproduction of "The Entropic Bound for Transformers".

Modules, one role each: ``spectral`` (rank measures), ``tasks`` (teachers, data), ``models`` (batched
students), ``train`` (the batched trainer), ``estimators`` (data-only predictors), one module per
paper section (``surrogate``, ``ladder``, ``attention_native``), ``configs`` (validated parameters),
``paper`` (the paper's reported numbers), ``results`` (verdicts, provenance), ``plots``,
``sections`` (papermill and the book), ``paths``.
"""

__version__ = "0.1.0"
