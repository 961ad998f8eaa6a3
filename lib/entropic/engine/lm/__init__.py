"""App. B's char-level language model: the batched ``CharLM``, its training, and the model-side measures
(static and realized attention ranks, FFN stable ranks). Knows no section."""
