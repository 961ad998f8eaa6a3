"""A toy section for the pipeline's tests: its module and its notebook (conftest's ``toy`` fixture lets the
registry find it from those two files alone)."""

from conftest import MYST_HEADER

TOY = '''
"""A toy section: each job squares its seed."""
from dataclasses import dataclass

from ..report import verdicts
from ..jobs.config import SectionConfig, distinct_ints, param
from ..jobs.store import Job

TITLE = "A toy section"
CALLS = []


@dataclass(frozen=True)
class Config(SectionConfig):
    seeds: tuple = param((0, 1, 2), "seeds", distinct_ints(0))


def jobs(cfg):
    return [Job(f"seed{s}", {"seed": s}) for s in cfg.seeds]


def fit(job):
    # The test's switches are read through globals(): a value a fit function names is part of its version
    # key, and these change between runs of one test.
    state = globals()
    state["CALLS"].append(job.params["seed"])
    if job.params["seed"] == state["FAIL_AT"]:
        raise KeyboardInterrupt
    if job.params["seed"] == state["NAN_AT"]:
        return {"squares": [{"seed": job.params["seed"], "square": float("nan")}]}
    return {"squares": [{"seed": job.params["seed"], "square": job.params["seed"] ** 2}]}


FAIL_AT = NAN_AT = None


def compare(results):
    total = float(results["squares"]["square"].sum())
    claim = verdicts.Claim("≈ 0", 0.0, "nowhere")
    return verdicts.table([verdicts.row("sum of squares", total, claim, "achievability", total < 100,
                                        estimator="training")])


def facts(results):
    return {"total": float(results["squares"]["square"].sum())}
'''

NOTEBOOK = MYST_HEADER + '''
# Toy

```{code-cell} ipython3
:tags: [parameters]

profile = "quick"  # parameter profile
overrides = {}  # parameter overrides
```

```{code-cell} ipython3
from entropic.publish import page
from entropic.jobs import runner
from entropic.sections import toy as section

results = runner.run("toy", profile, overrides, progress=False)
table = section.compare(results)
page.save(results, table=table)
page.glue_facts("toy", section.facts(results))
```
'''
