"""The pipeline: jobs → fit → results store → tables, papermill and Jupyter Book, the command line.

``config`` (parameters declared once, profiles, overrides), ``store`` (the results store, version keys,
provenance), ``runner`` (running a section's jobs through the store), ``verdicts`` (one criterion per
kind of claim), ``figures`` (the shared look of every figure), ``book`` (papermill and Jupyter Book).
"""
