"""What sections write against: one criterion per kind of claim (``verdicts``), the book's one number format
(``numbers``) and the shared look of every figure (``figures``)."""
