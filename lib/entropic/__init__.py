"""entropic: an executable reproduction of "The Entropic Bound for Transformers".

Three layers, one folder each: ``engine`` (spectral measures, tasks, batched students, the trainer,
estimators: knows no section), ``sections`` (one module per paper section) and ``pipeline`` (parameters,
the results store, verdicts, figures, papermill and the book). ``paths`` says where everything lives.
"""

import importlib.metadata

try:  # one version, pyproject.toml's
    __version__ = importlib.metadata.version("entropic")
except importlib.metadata.PackageNotFoundError:  # a copy on PYTHONPATH without installing (a GPU machine)
    __version__ = "unknown"
