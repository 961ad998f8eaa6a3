"""entropic: an executable reproduction of "The Entropic Bound for Transformers".

The layers, one folder each, from the ground up; a folder imports only the folders below it:

* ``engine``: the science, knowing no section: shared measures at its root (``spectral``, ``statistics``),
  ``synthetic`` (tasks, students, training, estimators, theorems), ``lm`` and ``corpus`` (App. B);
* ``jobs``: computing and storing: parameters, version keys, the results store, runs here or on a cluster;
* ``report``: what sections write against: verdicts, the number format, the figures' look;
* ``sections``: one module or package per paper section (``registry`` finds them by name, the one module
  the jobs layer asks for a section);
* ``publish`` (the book's code: pages, ledger, build, site, PDF) and ``argument`` (the theory and teaching
  pages' code).

``paths`` says where everything lives; ``__main__`` is the command line.
"""

import importlib.metadata

try:  # one version, pyproject.toml's
    __version__ = importlib.metadata.version("entropic")
except importlib.metadata.PackageNotFoundError:  # a copy on PYTHONPATH without installing (a GPU machine)
    __version__ = "unknown"
