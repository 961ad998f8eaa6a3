"""entropic: an executable reproduction of "The Entropic Bound for Transformers".

Three layers, one folder each: ``engine`` (spectral measures, tasks, batched students, the trainer,
estimators: knows no section), ``sections`` (one module per paper section) and ``pipeline`` (parameters,
the results store, verdicts, figures, papermill and the book). ``paths`` says where everything lives.
"""

__version__ = "0.2.0"
