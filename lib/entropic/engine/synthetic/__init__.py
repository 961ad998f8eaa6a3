"""The synthetic side of the paper: teacher tasks, batched students, their training, the data-only
estimators of r*, and the theorems with their numerical checks (§4–§6, App. A, App. D). Knows no section."""
