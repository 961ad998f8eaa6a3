"""Measured and predicted ranks for the real-corpus diagnostics (Appendix B.1-B.4).

Model side, per layer and head (App. B.1), all with the effective rank of eq. (1) unless named:

* ``static_kernel_rank``: R_eff(W_QK), W_QK = W_Q^h W_K^hᵀ : (D, D);
* ``mean_attention_rank``: R_eff(E_X[A(X)]) of the (T, T) attention averaged over inputs;
* ``per_input_attention_rank``: E_X[R_eff(A(X))];
* ``attention_participation_ratio``: the participation ratio (Σσ²)²/Σσ⁴ of the singular values of
  E_X[A(X)] (``spectral.participation_ratio``), i.e. a spectral measure of the mean attention, not
  the per-row inverse Simpson index of the weights;
* ``whitened_kernel_rank``: R_eff(W_QK Σ_X^{1/2}), Σ_X the covariance of the LayerNormed states the
  kernel acts on (as the paper writes it; ``side="both"`` gives Σ^{1/2} W_QK Σ^{1/2});
* ``ffn_stable_ranks``: stable rank (eq. 3) of the FFN matrices W_1 and W_2 per layer.

Data side, from token streams only: ``lag_operator_rank`` (the predictor, over a common symbol budget
so that corpora with different alphabets are comparable, see :func:`lag_operator`), the unigram
entropy H₁ (``unigram_entropy``), and the two ablations of App. B.4, ``ridge_operator_rank`` and
``repeat_operator_rank``. Statistics across corpora: ``coefficient_of_variation``, ``pearson``,
``spearman``, ``permutation_threshold`` (the |r| a correlation needs to be significant),
``robust_outliers`` (which values stand apart from the rest).

Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .charlm import CharLM, eval_windows
from .spectral import effective_rank, energy_effective_rank, participation_ratio, stable_rank

__all__ = [
    "LagOperator", "attention_participation_ratio", "coefficient_of_variation", "ffn_stable_ranks",
    "input_covariance", "lag_operator", "lag_operator_rank", "mean_attention_rank", "measure_charlm", "pearson",
    "per_input_attention_rank", "permutation_threshold", "repeat_operator", "repeat_operator_rank",
    "ridge_operator", "ridge_operator_rank", "robust_outliers", "spearman", "static_kernel_rank",
    "unigram_entropy", "whitened_kernel_rank",
]


def _attention(A) -> np.ndarray:
    A = np.asarray(A, dtype=np.float64)
    if not A.flags.writeable:  # e.g. np.broadcast_to views, which torch.as_tensor warns about
        A = A.copy()
    if A.ndim < 3 or A.shape[-1] != A.shape[-2] or A.shape[0] == 0:
        raise ValueError(f"attention must be (N, ..., T, T) with N ≥ 1, got shape {A.shape}")
    return A


def static_kernel_rank(W_QK):
    """R_eff(W_QK), eq. (1). W_QK : (..., D, D) → (...)."""
    return effective_rank(W_QK)


def mean_attention_rank(A):
    """R_eff(E_X[A(X)]), eq. (1). A : (N, ..., T, T), N inputs first → (...)."""
    return effective_rank(_attention(A).mean(0))


def per_input_attention_rank(A):
    """E_X[R_eff(A(X))], eq. (1) per input, then the mean over inputs. A : (N, ..., T, T) → (...)."""
    return np.asarray(effective_rank(_attention(A))).mean(0)


def attention_participation_ratio(A):
    """Participation ratio (Σσ_i²)²/Σσ_i⁴ of the singular values of E_X[A(X)]. A : (N, ..., T, T)."""
    return participation_ratio(_attention(A).mean(0))


def input_covariance(X) -> np.ndarray:
    """Covariance Σ_X (D, D) of the rows of X : (..., D) (centered, divided by the number of rows)."""
    X = np.asarray(X, dtype=np.float64)
    rows = X.reshape(-1, X.shape[-1]) if X.ndim >= 1 else X
    if X.ndim < 2 or rows.shape[0] < 2:
        raise ValueError(f"need at least two rows of states (..., D), got shape {X.shape}")
    rows = rows - rows.mean(0)
    return rows.T @ rows / rows.shape[0]


def _sqrtm_psd(S: np.ndarray) -> np.ndarray:
    S = np.asarray(S, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or not np.isfinite(S).all():
        raise ValueError(f"Σ must be a finite square matrix, got shape {S.shape}")
    if not np.allclose(S, S.T, atol=1e-8 * max(1.0, np.abs(S).max())):
        raise ValueError("Σ must be symmetric")
    w, U = np.linalg.eigh(S)
    return (U * np.sqrt(np.clip(w, 0, None))) @ U.T


def whitened_kernel_rank(W_QK, Sigma, side: str = "right"):
    """Covariance-whitened kernel rank R_eff(W_QK Σ^{1/2}) (App. B.1), eq. (1).

    Parameters
    ----------
    W_QK : (..., D, D) kernels; Sigma : (D, D) symmetric PSD covariance of the kernel's inputs.
    side : ``"right"`` (W_QK Σ^{1/2}, the paper's form) or ``"both"`` (Σ^{1/2} W_QK Σ^{1/2}: queries
        and keys both come from X).
    """
    if side not in ("right", "both"):
        raise ValueError(f"side must be 'right' or 'both', got {side!r}")
    root = _sqrtm_psd(Sigma)
    K = np.asarray(W_QK, dtype=np.float64)
    if K.shape[-1] != root.shape[0]:
        raise ValueError(f"W_QK {K.shape} and Σ {root.shape} disagree in D")
    K = K @ root
    return effective_rank(root @ K if side == "both" else K)


def ffn_stable_ranks(W_1, W_2) -> tuple[np.ndarray, np.ndarray]:
    """Stable rank, eq. (3), of W_1 : (..., D, 4D) and W_2 : (..., 4D, D)."""
    return np.asarray(stable_rank(np.asarray(W_1))), np.asarray(stable_rank(np.asarray(W_2)))


# ----------------------------------------------------------------------------- data side


def _stream(tokens) -> np.ndarray:
    t = np.asarray(tokens)
    if t.ndim != 1 or not np.issubdtype(t.dtype, np.integer) or t.size == 0 or t.min() < 0:
        raise ValueError(f"tokens must be a non-empty 1-D array of non-negative ids, got {t.dtype} {t.shape}")
    return t.astype(np.int64)


@dataclass
class LagOperator:
    """The lag operator of :func:`lag_operator`.

    Attributes
    ----------
    matrix : (K, lags·K) operator O = [Q_1 | … | Q_lags] over the K symbols kept (pooled one included).
    symbols : (K,) token ids kept, most frequent first when a budget applies, else sorted; −1 marks the
        pooled symbol.
    chi2 : (lags,) χ² mutual information Σ_ab Q_k(a, b)² per lag (≈ 2·MI in nats for weak dependence).
    effective_rank, energy_effective_rank : eq. (1) and eq. (2) of ``matrix``.
    vocab_size : distinct ids in the stream (before any budget or pooling).
    max_rank : K − 1, the largest rank O can have (every Q_k has the left null vector √p).
    """

    matrix: np.ndarray
    symbols: np.ndarray
    chi2: np.ndarray
    effective_rank: float
    energy_effective_rank: float
    vocab_size: int = 0
    max_rank: int = 0

    @property
    def normalized_rank(self) -> float:
        """effective_rank / max_rank, in [0, 1] (0 for a constant stream)."""
        return self.effective_rank / self.max_rank if self.max_rank else 0.0


def lag_operator(tokens, lags: int = 8, min_count: int = 20, symbols: int | None = 32) -> LagOperator:
    """The data-side predictor of App. B: the lag canonical-dependence operator of a token stream.

    For each lag k = 1..``lags``, with P_k(a, b) = P(x_t = a, x_{t−k} = b) the empirical joint of
    the current token and the token k back, and p the unigram frequencies,

        Q_k(a, b) = P_k(a, b) / √(p(a) p(b)) − √(p(a) p(b)),

    whose singular values are the canonical (maximal) correlations between the one-hot codes of x_t
    and x_{t−k} (the trivial correlation 1 removed), and ‖Q_k‖_F² is the χ² mutual information. The
    operator O = [Q_1 | … | Q_lags] : (K, lags·K) maps the pairwise past to the current token; its
    effective rank (eq. 1) is the number of independent next-token directions the past at those lags
    predicts: 0 for a constant text, K − 1 for a cyclic one, large for an unstructured one (whose Q_k
    are estimation noise spread over all directions).

    **A common symbol budget.** Over each corpus's full alphabet the effective rank mostly counts the
    alphabet: estimation noise fills every one of the K − 1 directions, so across the six corpora of
    App. B the uncapped predictor follows the vocabulary size (Pearson ≈ 0.88 with V). With
    ``symbols=K`` only the K most frequent ids are kept (ties: the smaller id) and every other id is
    pooled into one symbol, so every corpus is measured on K + 1 symbols and the rank is bounded by
    the same K for all: what is compared is the dependence structure, not the alphabet.
    ``symbols=None`` keeps every id (the uncapped definition). Symbols seen fewer than ``min_count``
    times are pooled as well, because the 1/√p weighting turns a symbol seen once into a spurious
    perfect correlation. Computed from the stream given (pass the training split only).

    Parameters
    ----------
    tokens : (T,) non-negative token ids.
    lags : number of lags (≥ 1, < T).
    min_count : rarer ids are pooled.
    symbols : the budget K (≥ 1) of kept ids, or None for all.
    """
    t = _stream(tokens)
    if lags < 1 or len(t) <= lags:
        raise ValueError(f"lags must lie in [1, {len(t) - 1}] for a stream of {len(t)} tokens, got {lags}")
    if min_count < 1:
        raise ValueError(f"min_count must be at least 1, got {min_count}")
    if symbols is not None and (isinstance(symbols, bool) or int(symbols) < 1):
        raise ValueError(f"symbols must be a positive budget or None, got {symbols}")
    counts = np.bincount(t)
    keep = np.flatnonzero(counts >= min_count)
    if symbols is not None and len(keep) > symbols:
        keep = keep[np.argsort(-counts[keep], kind="stable")[:symbols]]  # most frequent first
    rare = np.setdiff1d(np.flatnonzero(counts > 0), keep)
    mapping = np.full(len(counts), len(keep), dtype=np.int64)
    mapping[keep] = np.arange(len(keep))
    K = len(keep) + (1 if rare.size else 0)
    s = mapping[t]
    kept = keep if not rare.size else np.append(keep, -1)
    blocks, chi2 = [], []
    for k in range(1, lags + 1):
        joint = np.bincount(s[k:] * K + s[:-k], minlength=K * K).reshape(K, K) / (len(s) - k)
        pa, pb = joint.sum(1), joint.sum(0)  # marginals of this lag's pairs: Q_k is exactly centered
        root = np.sqrt(np.outer(pa, pb))
        Q = np.divide(joint, root, out=np.zeros_like(joint), where=root > 0) - root
        blocks.append(Q)
        chi2.append(float((Q**2).sum()))
    operator = np.concatenate(blocks, axis=1)
    return LagOperator(operator, kept, np.array(chi2), float(effective_rank(operator)),
                       float(energy_effective_rank(operator)), int((counts > 0).sum()), K - 1)


def lag_operator_rank(tokens, lags: int = 8, min_count: int = 20, symbols: int | None = 32) -> float:
    """Predicted rank: R_eff (eq. 1) of :func:`lag_operator` (over the common symbol budget)."""
    return lag_operator(tokens, lags, min_count, symbols).effective_rank


def unigram_entropy(tokens) -> float:
    """H₁ = −Σ p(a) log p(a) (nats/char) of the unigram frequencies of a token stream."""
    p = np.bincount(_stream(tokens)) / len(tokens)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum())


def _windows(tokens, context: int, max_windows: int | None) -> np.ndarray:
    x, y = eval_windows(_stream(tokens), context, max_windows)
    return torch.cat([x, y[:, -1:]], 1).numpy()  # (N, context + 1): the window and its next token


def ridge_operator(tokens, context: int = 64, width: int = 64, ridge: float = 1.0, seed: int = 0,
                   max_windows: int | None = 4096) -> np.ndarray:
    """Ablation of App. B.4: a token-mixing operator fitted with fixed random embeddings.

    Tokens are embedded by a fixed Gaussian E : (V, width), entries N(0, 1/width), drawn from
    ``seed``. Over N non-overlapping windows, X_n : (T, width) embeds tokens 0..T−1 and Y_n embeds
    tokens 1..T (the next token at every position). The causal operator A : (T, T) (A[t, s] = 0 for
    s > t) minimizes Σ_n ‖Y_n − A X_n‖_F² + ridge·‖A‖_F²; row t solves
    (G[:t+1, :t+1] + ridge·I) a = C[t, :t+1] with G = Σ_n X_n X_nᵀ and C = Σ_n Y_n X_nᵀ.
    """
    if ridge <= 0 or width < 1:
        raise ValueError(f"need ridge > 0 and width ≥ 1, got ridge={ridge}, width={width}")
    w = _windows(tokens, context, max_windows)
    E = np.random.default_rng(seed).normal(0.0, 1.0 / np.sqrt(width), (int(w.max()) + 1, width))
    X, Y = E[w[:, :-1]], E[w[:, 1:]]  # (N, T, width)
    G = np.einsum("nsd,nud->su", X, X)
    C = np.einsum("ntd,nsd->ts", Y, X)
    A = np.zeros((context, context))
    for t in range(context):
        A[t, : t + 1] = np.linalg.solve(G[: t + 1, : t + 1] + ridge * np.eye(t + 1), C[t, : t + 1])
    return A


def ridge_operator_rank(tokens, **kwargs) -> float:
    """R_eff (eq. 1) of :func:`ridge_operator`."""
    return float(effective_rank(ridge_operator(tokens, **kwargs)))


def repeat_operator(tokens, context: int = 64, max_windows: int | None = 4096) -> np.ndarray:
    """Ablation of App. B.4: the token-space repeat operator R : (T, T).

    R[t, s] = P(x_t = x_s) for s < t over non-overlapping windows (how often the token s positions
    back repeats the current one), 0 on and above the diagonal.
    """
    w = _windows(tokens, context, max_windows)[:, :-1]  # (N, T)
    same = (w[:, :, None] == w[:, None, :]).mean(0)
    return np.tril(same, -1)


def repeat_operator_rank(tokens, context: int = 64, max_windows: int | None = 4096) -> float:
    """R_eff (eq. 1) of :func:`repeat_operator`."""
    return float(effective_rank(repeat_operator(tokens, context, max_windows)))


# ----------------------------------------------------------------------------- statistics


def _vector(x, label: str) -> np.ndarray:
    v = np.asarray(x, dtype=np.float64).ravel()
    if v.size < 2 or not np.isfinite(v).all():
        raise ValueError(f"{label} needs at least two finite values, got {v}")
    return v


def coefficient_of_variation(x, ddof: int = 0) -> float:
    """std(x) / mean(x) (population std by default), as CV_seed of App. C.5."""
    v = _vector(x, "coefficient_of_variation")
    if v.mean() == 0:
        raise ValueError(f"the mean of {v} is zero: CV undefined")
    return float(v.std(ddof=ddof) / abs(v.mean()))


def pearson(x, y) -> float:
    """Pearson correlation of two equally long samples; a constant sample raises ValueError."""
    a, b = _vector(x, "pearson"), _vector(y, "pearson")
    if a.shape != b.shape:
        raise ValueError(f"samples differ in length: {a.size} and {b.size}")
    a, b = a - a.mean(), b - b.mean()
    den = np.sqrt((a**2).sum() * (b**2).sum())
    if den == 0:
        raise ValueError(f"a constant sample has no correlation: {x}, {y}")
    return float((a * b).sum() / den)


def _ranks(v: np.ndarray) -> np.ndarray:
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v))
    ranks[order] = np.arange(1, len(v) + 1)
    for value in np.unique(v):  # ties share their average rank
        tied = v == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def spearman(x, y) -> float:
    """Spearman correlation: Pearson of the (tie-averaged) ranks."""
    return pearson(_ranks(_vector(x, "spearman")), _ranks(_vector(y, "spearman")))


def permutation_threshold(x, y, level: float = 0.05, n_perm: int = 2000, seed: int = 0) -> float:
    """The |Pearson r| a correlation of ``x`` and ``y`` must exceed to be significant at ``level``.

    The (1 − level) quantile of |r| over permutations of ``y`` (all n! of them for n ≤ 8, else
    ``n_perm`` drawn from ``seed``): a two-sided permutation test needing no distributional
    assumption, which matters with six corpora.
    """
    import itertools

    a, b = _vector(x, "permutation_threshold"), _vector(y, "permutation_threshold")
    if a.size != b.size or a.size < 3:
        raise ValueError(f"need two samples of equal length ≥ 3, got {a.size} and {b.size}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level}")
    if a.size <= 8:
        orders = [list(p) for p in itertools.permutations(range(a.size))]
    else:
        rng = np.random.default_rng(seed)
        orders = [rng.permutation(a.size) for _ in range(n_perm)]
    values = np.abs([pearson(a, b[o]) for o in orders])
    return float(np.quantile(values, 1 - level))


def robust_outliers(x, z: float = 3.0) -> np.ndarray:
    """Which values stand apart: |x − median| > z · 1.4826 · MAD (a robust z-score above ``z``).

    MAD is the median absolute deviation (1.4826·MAD estimates σ for normal data). When more than
    half the values are equal (MAD = 0), every value differing from the median stands apart.
    Returns a boolean array; needs at least three values.
    """
    v = _vector(x, "robust_outliers")
    if v.size < 3:
        raise ValueError(f"robust_outliers needs at least three values, got {v}")
    deviation = np.abs(v - np.median(v))
    mad = np.median(deviation)
    return deviation > z * 1.4826 * mad if mad > 0 else deviation > 0


# ----------------------------------------------------------------------------- one model


@torch.no_grad()
def measure_charlm(model: CharLM, tokens, context: int | None = None, max_windows: int = 64,
                   batch_size: int = 32) -> list[dict]:
    """Every model-side measure of App. B.1 for every model, layer and head of ``model``.

    The attention measures average over :func:`charlm.eval_windows` of ``tokens`` (validation split);
    Σ_X is the covariance of that layer's LN₁ states over the same windows.

    Returns
    -------
    rows : one dict per (model, layer, head): model, layer, head, static_kernel_rank,
        mean_attention_rank, per_input_attention_rank, attention_participation_ratio,
        whitened_kernel_rank, ffn_in_stable_rank, ffn_out_stable_rank (the last two per layer).
    """
    context = context or model.T
    x, _ = eval_windows(tokens, context, max_windows)
    device = next(model.parameters()).device
    att = [[] for _ in range(model.L)]
    states = [[] for _ in range(model.L)]
    for i in range(0, len(x), batch_size):
        _, a, h = model(x[i:i + batch_size].to(device), return_attention=True, return_hidden=True)
        for layer in range(model.L):
            att[layer].append(a[layer].double().cpu())
            states[layer].append(h[layer].double().cpu())
    kernels = model.qk_kernels().double().cpu().numpy()  # (M, L, H, D, D)
    ffn_in, ffn_out = ffn_stable_ranks(*(w.double().cpu().numpy() for w in model.ffn_weights()))
    rows = []
    for layer in range(model.L):
        A = torch.cat(att[layer], 1).numpy()  # (M, N, H, T, T)
        Z = torch.cat(states[layer], 1).numpy()  # (M, N, T, D)
        for m in range(model.M):
            static = static_kernel_rank(kernels[m, layer])
            mean_r, per_r = mean_attention_rank(A[m]), per_input_attention_rank(A[m])
            pr = attention_participation_ratio(A[m])
            white = whitened_kernel_rank(kernels[m, layer], input_covariance(Z[m]))
            for head in range(model.H):
                rows.append(dict(model=m, seed=model.seeds[m], layer=layer, head=head,
                                 static_kernel_rank=float(static[head]), mean_attention_rank=float(mean_r[head]),
                                 per_input_attention_rank=float(per_r[head]),
                                 attention_participation_ratio=float(pr[head]),
                                 whitened_kernel_rank=float(white[head]),
                                 ffn_in_stable_rank=float(ffn_in[m, layer]),
                                 ffn_out_stable_rank=float(ffn_out[m, layer])))
    return rows
