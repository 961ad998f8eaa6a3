"""Model-side measures of the real-corpus diagnostics (Appendix B.1), per layer and head.

All with the effective rank of eq. (1) unless named:

* ``static_kernel_rank``: R_eff(W_QK) of one head, W_QK^h = W_Q^h W_K^hᵀ : (D, D) of rank ≤ D/H;
* ``layer_kernel_rank``: R_eff of the whole layer's W_Q W_Kᵀ = Σ_h W_Q^h W_K^hᵀ (the per-layer reading);
* ``mean_attention_rank``: R_eff(E_X[A(X)]) of the (T, T) attention averaged over inputs;
* ``per_input_attention_rank``: E_X[R_eff(A(X))];
* ``attention_participation_ratio``: the participation ratio (Σσ²)²/Σσ⁴ of the singular values of
  E_X[A(X)] (``spectral.participation_ratio``), a spectral reading of "participation";
* ``attention_inverse_simpson``: the mean over rows and inputs of 1/Σ_s A_ts², the number of positions
  a query effectively attends to (the per-row reading of "participation");
* ``whitened_kernel_rank``: R_eff(W_QK Σ_X^{1/2}), Σ_X the covariance of the LayerNormed states the
  kernel acts on (as the paper writes it; ``side="both"`` gives Σ^{1/2} W_QK Σ^{1/2});
* ``ffn_stable_ranks``: stable rank (eq. 3) of the FFN matrices W_1 and W_2 per layer.

``measure_charlm`` computes all of them for every model, layer and head of a ``CharLM``;
``measure_charlm_spectra`` also returns the singular values of every matrix measured (``SPECTRA``), so
that a later reading of a spectral measure (eq. 2, a per-layer reading, another tolerance) is computed
from the stored spectra, without the model. The data side
(the predictors and the B.4 operators) is in ``corpus_predictors``, statistics across corpora in
``statistics``. Used by the real-corpus diagnostics section (Appendix B).
"""

from __future__ import annotations

import numpy as np
import torch

from ..spectral import effective_rank, participation_ratio, singular_values, stable_rank
from .charlm import CharLM, eval_windows

__all__ = [
    "SPECTRA", "attention_inverse_simpson", "attention_participation_ratio", "ffn_stable_ranks", "input_covariance",
    "layer_kernel_rank", "mean_attention_rank", "measure_charlm", "measure_charlm_spectra", "per_input_attention_rank",
    "static_kernel_rank", "whitened_kernel_rank",
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


def layer_kernel_rank(W_QK):
    """R_eff of a layer's kernel W_Q W_Kᵀ = Σ_h W_QK^h, eq. (1). W_QK : (..., H, D, D) per head → (...)."""
    return effective_rank(np.asarray(W_QK, dtype=np.float64).sum(-3))


def mean_attention_rank(A):
    """R_eff(E_X[A(X)]), eq. (1). A : (N, ..., T, T), N inputs first → (...)."""
    return effective_rank(_attention(A).mean(0))


def per_input_attention_rank(A):
    """E_X[R_eff(A(X))], eq. (1) per input, then the mean over inputs. A : (N, ..., T, T) → (...)."""
    return np.asarray(effective_rank(_attention(A))).mean(0)


def attention_participation_ratio(A):
    """Participation ratio (Σσ_i²)²/Σσ_i⁴ of the singular values of E_X[A(X)]. A : (N, ..., T, T)."""
    return participation_ratio(_attention(A).mean(0))


def attention_inverse_simpson(A):
    """Mean over inputs and query rows of 1 / Σ_s A_ts²: how many positions a query effectively attends
    to (1 for one-hot rows, t + 1 for uniform causal row t). A : (N, ..., T, T) → (...)."""
    A = _attention(A)
    return (1.0 / (A**2).sum(-1)).mean(-1).mean(0)


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


# ----------------------------------------------------------------------------- one model

# The matrices whose singular values ``measure_charlm_spectra`` returns: name -> (per head?, what it is).
# A per-head W_QK^h and its whitened form have rank ≤ d_h = D/H: only their d_h leading values are kept
# (the others are round-off of a rank-d_h product).
SPECTRA = {
    "W_QK": (True, "the static kernel W_Q^h W_K^hᵀ of a head, d_h leading values"),
    "whitened_W_QK": (True, "W_QK^h Σ_X^{1/2}, d_h leading values"),
    "mean_attention": (True, "E_X[A(X)] of a head, T values"),
    "layer_W_QK": (False, "the layer's kernel Σ_h W_QK^h, D values"),
    "ffn_in": (False, "W_1 : (D, 4D), D values"),
    "ffn_out": (False, "W_2 : (4D, D), D values"),
}


def _values(sv) -> list[float]:
    """Singular values as stored: float32 precision, the precision the models train in."""
    return [float(v) for v in np.asarray(sv, dtype=np.float32)]


@torch.no_grad()
def measure_charlm(model: CharLM, tokens, context: int | None = None, max_windows: int = 64,
                   batch_size: int = 32) -> list[dict]:
    """Every model-side measure of App. B.1 for every model, layer and head of ``model``.

    The attention measures average over :func:`charlm.eval_windows` of ``tokens`` (validation split);
    Σ_X is the covariance of that layer's LN₁ states over the same windows.

    Returns
    -------
    rows : one dict per (model, layer, head): model, seed, layer, head, static_kernel_rank,
        mean_attention_rank, per_input_attention_rank, attention_participation_ratio,
        attention_inverse_simpson, whitened_kernel_rank, and per layer (the same in every head's row)
        layer_kernel_rank, ffn_in_stable_rank, ffn_out_stable_rank.
    """
    return measure_charlm_spectra(model, tokens, context, max_windows, batch_size)[0]


@torch.no_grad()
def measure_charlm_spectra(model: CharLM, tokens, context: int | None = None, max_windows: int = 64,
                           batch_size: int = 32) -> tuple[list[dict], list[dict]]:
    """:func:`measure_charlm`'s rows, and the singular values of every matrix they measure.

    Returns
    -------
    rows : as :func:`measure_charlm`.
    spectra : one dict per (model, layer, matrix, head) with model, seed, layer, head (None for a
        per-layer matrix), matrix (a key of ``SPECTRA``) and values (σ₁ ≥ σ₂ ≥ …, float32 precision).
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
    W_1, W_2 = (w.double().cpu().numpy() for w in model.ffn_weights())
    ffn_in, ffn_out = ffn_stable_ranks(W_1, W_2)
    rows, spectra = [], []
    for layer in range(model.L):
        A = torch.cat(att[layer], 1).numpy()  # (M, N, H, T, T)
        Z = torch.cat(states[layer], 1).numpy()  # (M, N, T, D)
        for m in range(model.M):
            static = static_kernel_rank(kernels[m, layer])
            mean_r, per_r = mean_attention_rank(A[m]), per_input_attention_rank(A[m])
            pr, simpson = attention_participation_ratio(A[m]), attention_inverse_simpson(A[m])
            white = whitened_kernel_rank(kernels[m, layer], input_covariance(Z[m]))
            whole = float(layer_kernel_rank(kernels[m, layer]))
            for head in range(model.H):
                rows.append(dict(model=m, seed=model.seeds[m], layer=layer, head=head,
                                 static_kernel_rank=float(static[head]), mean_attention_rank=float(mean_r[head]),
                                 per_input_attention_rank=float(per_r[head]),
                                 attention_participation_ratio=float(pr[head]),
                                 attention_inverse_simpson=float(simpson[head]),
                                 whitened_kernel_rank=float(white[head]), layer_kernel_rank=whole,
                                 ffn_in_stable_rank=float(ffn_in[m, layer]),
                                 ffn_out_stable_rank=float(ffn_out[m, layer])))
            per_head = {"W_QK": singular_values(kernels[m, layer])[:, :model.dh],
                        "whitened_W_QK": singular_values(kernels[m, layer] @ _sqrtm_psd(input_covariance(Z[m])))
                        [:, :model.dh],
                        "mean_attention": singular_values(A[m].mean(0))}
            per_layer = {"layer_W_QK": singular_values(kernels[m, layer].sum(0)),
                         "ffn_in": singular_values(W_1[m, layer]), "ffn_out": singular_values(W_2[m, layer])}
            where = dict(model=m, seed=model.seeds[m], layer=layer)
            spectra += [{**where, "head": head, "matrix": name, "values": _values(sv[head])}
                        for name, sv in per_head.items() for head in range(model.H)]
            spectra += [{**where, "head": None, "matrix": name, "values": _values(sv)}
                        for name, sv in per_layer.items()]
    return rows, spectra
