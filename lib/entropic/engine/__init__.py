"""The engine: spectral measures, synthetic tasks, batched students, the trainer, data-only estimators.

It knows nothing of sections, results stores or books: every module here is a plain library that the
sections (``entropic.sections``) call.
"""
