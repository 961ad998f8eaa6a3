"""The capacity sweep's one kind of job: train one student of query–key width r on one corpus and measure it at
every checkpoint (see the package docstring)."""

from __future__ import annotations

import torch

from ...engine.corpus import copying, corpora, routing
from ...engine.lm.charlm import evaluate
from ...engine.lm.ranked import RankedLM
from ...engine.lm.train import train_charlm
from ...engine.spectral import effective_rank_from_spectrum, energy_effective_rank_from_spectrum, singular_values
from ...jobs.store import Job
from .spec import ROUTING


def _real(p: dict):
    """A real corpus cut as App. B cuts it: its training stream, validation parts and provenance columns."""
    corpus = corpora.load_planned(p["corpus"], p["sha256"], user_dir=p["corpus_dir"], max_chars=p["max_chars"],
                                  sources=p["sources"])
    parts = corpora.split_blocks(corpus.tokens, p["block"], p["val_every"], p["tail_fraction"])
    source = {"source": corpus.provenance.source, "sha256": corpus.provenance.sha256,
              "vocab_size": corpus.vocab_size, "chars": len(corpus.text)}
    return parts.train, {"val_loss": parts.interleaved, "tail_val_loss": parts.tail}, source, None


def _routing(p: dict):
    """The routing corpus of the job (train, its validation stream, columns; windows start a document)."""
    made = routing.routing_corpus(p["routing_keys"], p["routing_values"], p["routing_rank"], p["routing_scale"],
                                  p["context"], p["routing_docs"], p["routing_val_docs"], seed=0)
    source = {"source": "generated", "vocab_size": made.vocab_size, "chars": len(made.train), "floor": made.floor}
    return made.train, {"val_loss": made.val}, source, p["context"]


def kernel_rows(model: RankedLM) -> list[dict]:
    """Per layer and head: the singular values of W_QK^h (its first d_model/heads, of at most r nonzero) and its
    effective ranks (eq. 1 and eq. 2), and the same of the layer's kernel Σ_h W_QK^h."""
    kernels = model.qk_kernels()[0].double()  # (L, H, D, D)
    rows = []
    for layer in range(model.L):
        whole = singular_values(kernels[layer].sum(0))
        for head in [*range(model.H), None]:
            sv = whole if head is None else singular_values(kernels[layer, head])[:model.dh]
            rows.append({"layer": layer, "head": "all" if head is None else head,
                         "kernel_rank": float(effective_rank_from_spectrum(sv)),
                         "kernel_energy_rank": float(energy_effective_rank_from_spectrum(sv)),
                         "singular_values": [float(v) for v in sv]})
    return rows


def _generated(p: dict):
    """The generator of a ``generated`` job (the routing or the copying corpus), with its floor and the
    zero-kernel teacher's cross-entropy (``blind``) among the columns; windows start a document."""
    if p["corpus"] == ROUTING:
        made = routing.routing_corpus(p["routing_keys"], p["routing_values"], p["routing_rank"], p["routing_scale"],
                                      p["context"], p["routing_docs"], p["routing_val_docs"], seed=0)
        blind = routing.routing_blind(made, p["routing_values"], p["context"])
    else:
        made = copying.copying_corpus(p["copying_symbols"], p["copying_rank"], p["copying_share"],
                                      p["copying_scale"], p["context"], p["routing_docs"], p["routing_val_docs"],
                                      seed=0)
        blind = made.blind
    source = {"source": "generated", "vocab_size": made.vocab_size, "chars": len(made.train), "floor": made.floor,
              "blind": blind}
    return made.train, {"val_loss": made.val}, source, p["context"]


def fit(job: Job, scratch=None) -> dict[str, list[dict]]:
    """Train one student (``RankedLM`` of width ``rank``) with App. B's protocol and AdamW's fused kernel, measuring
    it at every checkpoint: its validation loss on each held-out part, its recent training loss, and its kernels
    (``kernel_rows``). ``scratch`` (a file the runner provides) holds the training state between checkpoints."""
    p = job.params
    return _student(p, *(_routing if p["corpus"] == ROUTING else _real)(p), scratch)


def fit_generated(job: Job, scratch=None) -> dict[str, list[dict]]:
    """``fit`` on a generator of the third declaration's calibration (``_generated``): the same student, protocol
    and measurements, with the generator's floor and zero-kernel cross-entropy stored beside each loss."""
    return _student(job.params, *_generated(job.params), scratch)


FITS = {"train": fit, "generated": fit_generated}


def _student(p: dict, train, held: dict, source: dict, align, scratch) -> dict[str, list[dict]]:
    """One student of job parameters ``p`` trained on ``train`` and measured on each stream of ``held`` at every
    checkpoint, ``source``'s columns beside each loss (``align``: windows start a document of that length)."""
    model = RankedLM(p["seed"], source["vocab_size"], p["context"], p["d_model"], p["layers"], p["heads"], p["rank"])
    device = "cuda" if torch.cuda.is_available() else "cpu"
    cell = {"corpus": p["corpus"], "rank": p["rank"], "seed": p["seed"]}

    def measure(step, model):
        losses = {name: float(evaluate(model, stream, p["context"], p["eval_windows"])[0])
                  for name, stream in held.items()}
        point = {**cell, "step": step, "tokens": step * p["batch_size"] * p["context"], "fraction": step / p["steps"]}
        return {"models": [{**point, **losses}], "kernels": [{**point, **row} for row in kernel_rows(model)]}

    result = train_charlm(model, train, p["steps"], p["batch_size"], lr=p["lr"], weight_decay=p["weight_decay"],
                          progress=False, device=device, checkpoints=p["checkpoints"], on_checkpoint=measure,
                          state_path=scratch, fused=True, align=align)
    models, kernels = [], []
    for step, measured in result.checkpoints:
        recent = result.history[max(0, step - max(1, step // 10)):step, 0]  # the last tenth before the checkpoint
        models += [{**source, **row, "train_loss": float(recent.mean()), "train_seconds": result.seconds}
                   for row in measured["models"]]
        kernels += measured["kernels"]
    return {"models": models, "kernels": kernels}
