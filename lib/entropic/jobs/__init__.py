"""Computing and storing a section's jobs: parameters declared once (``config``), version keys of the code a
job runs (``versions``), the results store (``store``), running here or on a Dask cluster (``runner``,
``cluster``) and verified re-keying (``rekey``). No Markdown: what a page shows lives in ``publish``."""
