"""The theory and teaching pages' code: the argument's computed pictures (``figures``), the teaching chapter's
small computations (``teaching``) and its lesson: the words read from the chapter (``lesson_text``), its slides
(``slides``), its handout (``handout``), both written by ``lesson``. No jobs, no store."""
