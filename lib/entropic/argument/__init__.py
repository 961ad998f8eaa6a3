"""The theory and teaching pages' code: the argument's computed pictures (``figures``) and the teaching
chapter's small computations (``teaching``). No jobs, no store."""
