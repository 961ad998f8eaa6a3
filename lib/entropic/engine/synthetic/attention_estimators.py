"""Data-only predictors of r* for the attention-native teachers of §6 ("Predictability and its
frontier", Table 4): Y = M(X) X V* + E of ``tasks.make_attention_task``, estimated before any training.

* ``attention_kernel_v_known`` — recover each sample's mixing matrix, then regress the scores on
  X K Xᵀ/√D (for softmax after inverting it with a log);
* ``attention_kernel_v_unknown`` — alternating minimization over (K, V), plain or with singular-value
  soft-thresholding (nuclear-norm shrinkage) of K;
* ``realized_mixer_energy_rank`` — eq. (2) of the data-averaged attention map E_X[M(X)];
* ``paper_log_inversion`` — the V-known inversion as the paper describes it: a log of the recovered mixing
  with no floor and no centring, ranks at the default numerical tolerance;
* ``predict_rank`` — all of them on one task, as one flat row.

The regressions these are built from, the shrinkage step (``singular_value_soft_threshold``) and the
records they return (``MixingRecovery``, ``KernelEstimate``, ``AlternatingEstimate``) live in
``kernel_regression``; this module validates the inputs, recovers the mixing and runs the estimators.

Used by the predictability section (§6, Table 4) and the softmax frontier (``sections/frontier``, its
``existing`` estimators).

Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank. Everything is computed in float64.
"""

from __future__ import annotations

import math

import torch
from tqdm.auto import tqdm

from .. import spectral
from .kernel_regression import (
    AlternatingEstimate,
    KernelEstimate,
    MixingRecovery,
    check_positive,
    kernel_ranks,
    linear_kernel_step,
    score_regression,
    singular_value_soft_threshold,
    value_step,
)
from .tasks import TEACHERS, attention_scores

_EPS = float(torch.finfo(torch.float32).eps)  # the tasks store X and Y in float32


def _as_batch(name: str, A) -> torch.Tensor:
    t = torch.as_tensor(A).detach().to(device="cpu", dtype=torch.float64)
    if t.ndim != 3 or t.numel() == 0:
        raise ValueError(f"{name} must be a non-empty (N, T, D) array, got shape {tuple(t.shape)}")
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} holds NaN or Inf values")
    return t


def _check(X, Y, V=None, teacher: str | None = None):
    X, Y = _as_batch("X", X), _as_batch("Y", Y)
    if X.shape != Y.shape:
        raise ValueError(f"X and Y must have the same (N, T, D) shape, got {tuple(X.shape)} and {tuple(Y.shape)}")
    if teacher is not None and teacher not in TEACHERS:
        raise ValueError(f"unknown teacher {teacher!r}; expected one of {TEACHERS}")
    if V is None:
        return X, Y
    V = torch.as_tensor(V).detach().to(device="cpu", dtype=torch.float64)
    D = X.shape[-1]
    if V.shape != (D, D):
        raise ValueError(f"V must have shape (D, D) = ({D}, {D}) to match X, got {tuple(V.shape)}")
    if not torch.isfinite(V).all():
        raise ValueError("V holds NaN or Inf values")
    return X, Y, V


def recover_mixing(X, Y, V) -> MixingRecovery:
    """Least-squares mixing matrices of Y_n = M_n X_n V + E_n given V: M̂_n = Y_n Z_n⁺, Z_n = X_n V.

    When Z_n : (T, D) has full row rank (needs T ≤ D and V invertible) this is
    M̂_n = Y_n Z_nᵀ (Z_n Z_nᵀ)⁻¹. Otherwise — always when T > D — M_n is not identifiable from one
    sample; the pseudo-inverse (singular values of Z_n below ``max(T, D) · ε₃₂ · s₁`` — float32 data resolve no
    less — dropped) returns the
    minimum-norm solution M_n P_n + E_n Z_n⁺ and ``identifiable`` is False.

    Parameters
    ----------
    X, Y : (N, T, D) array_like
    V : (D, D) array_like, the value map.

    Returns
    -------
    MixingRecovery with ``mixing`` (N, T, T).
    """
    X, Y, V = _check(X, Y, V)
    T, D = X.shape[-2:]
    U, s, Wh = torch.linalg.svd(X @ V, full_matrices=False)  # (N,T,q), (N,q), (N,q,D); q = min(T, D)
    keep = s > max(T, D) * _EPS * s[:, :1]
    inv_s = torch.where(keep, 1 / s.clamp_min(torch.finfo(s.dtype).tiny), 0.0)
    mixing = ((Y @ Wh.mT) * inv_s[:, None, :]) @ U.mT  # Y W S⁺ Uᵀ : (N, T, T)
    return MixingRecovery(mixing, identifiable=bool(T <= D and bool(keep.all())))


def attention_kernel_v_known(X, Y, V, teacher: str, *, floor: float | None = None) -> KernelEstimate:
    """Estimate K* of an attention teacher from (X, Y) given V* (App. C.5, "V-known predictability").

    1. Recover M̂_n = Y_n Z_n⁺, Z_n = X_n V (``recover_mixing``).
    2. Scores: ``linear_qk`` S_n = M̂_n; ``softmax_qk`` S_n = log M̂_n, which equals X K Xᵀ/√D up to a
       per-row constant (the log-normalizer), removed by centering the rows on both sides of the
       regression. Noise can make entries of M̂ ≤ 0: they are clamped at ``floor`` before the log.
    3. Least squares min_K Σ_n ‖(S_n − X_n K X_nᵀ/√D) C‖², C = I (linear) or I − 11ᵀ/T (softmax), whose
       normal equations Σ_n G_n K H_n = √D Σ_n X_nᵀ S_n C X_n (G = XᵀX, H = XᵀCX) are solved directly
       as one (D², D²) Cholesky system in float64.

    Tolerance rule for ``numerical_rank``: with residual scale σ̂ (per residual degree of freedom,
    N T² − D² or N T (T−1) − D²) and A = Σ_n H_n ⊗ G_n, the entries of K̂ − K* have mean variance
    σ̂² tr(A⁻¹)/D, so the (D, D) noise matrix has spectral norm about ``noise_edge = 2σ̂ √tr(A⁻¹)`` (the
    edge of a Gaussian matrix); singular values above ``max(2 · noise_edge, D · ε₃₂ · σ₁)`` count. The
    second term is the resolution of float32 data: rounding X is an error in the regressors that the
    residual does not see, and it alone leaves singular values ~ε₃₂ · σ₁ in K̂ when σ = 0.
    Under softmax the log of a noisy M̂ is biased, so this rule counts the bias too.

    Parameters
    ----------
    X, Y : (N, T, D) array_like
    V : (D, D) array_like, the teacher's value map.
    teacher : ``"linear_qk"`` or ``"softmax_qk"``.
    floor : softmax only: entries of M̂ below it are raised to it before the log; default 0.1/T, a
        tenth of the uniform attention weight. Must be positive.

    Returns
    -------
    KernelEstimate
    """
    X, Y, V = _check(X, Y, V, teacher)
    if floor is not None:
        check_positive("floor", floor)
    recovered = recover_mixing(X, Y, V)
    K, sigma_hat, edge, clamped = score_regression(X, teacher == "softmax_qk")(recovered.mixing, floor)
    rank, energy = kernel_ranks(K, edge)
    return KernelEstimate(K, edge, rank, energy, sigma_hat, recovered.identifiable, clamped)


def attention_kernel_v_unknown(X, Y, teacher: str, *, shrinkage: float | str | None = None,
                               shrink_multiple: float = 1.0, tol: float = 1e-4, max_iter: int = 50,
                               floor: float | None = None, progress: bool = False) -> AlternatingEstimate:
    """Jointly estimate (K, V) from (X, Y) alone by alternating minimization (App. C.5, "V-unknown").

    Initialization: K₀ = I_D (``linear_qk``; K = 0 would make the mixing vanish) or K₀ = 0
    (``softmax_qk``: uniform attention), then V₀ is the least-squares value map for K₀. Each iteration:

    * K-step. ``linear_qk``: the exact least squares min_K Σ ‖Y_n − X_n K X_nᵀ X_n V/√D‖² (normal
      equations solved as one (D², D²) Cholesky system). ``softmax_qk``: the V-known estimator with the
      current V̂ (mixing recovered with V̂, log-inverted, row-centered regression) — a surrogate for the
      non-convex K-step, not a descent step on ‖Y − softmax(·) X V‖².
    * Shrinkage (optional): K ← U (σ − τ)₊ Wᵀ, singular-value soft-thresholding, i.e. the proximal step
      of τ‖K‖_* under the isotropic approximation of the K-step's normal matrix.
    * V-step: the exact least squares min_V Σ ‖Y_n − M_n(K) X_n V‖², a (D, D) system.
    * ``linear_qk`` only: rescale K → aK, V → V/a so that ‖K‖_F = ‖V‖_F (the fit is invariant; this
      keeps an absolute ``shrinkage`` meaningful and the iterates bounded). No rank measure depends on a.

    Stopping rule: stop when the scale-normalized kernel moves by less than ``tol``,
    ‖K_k/‖K_k‖_F − K_{k−1}/‖K_{k−1}‖_F‖_F ≤ tol (``converged`` True), or after ``max_iter`` K-steps
    (``converged`` False). If shrinkage sets K to zero the iteration stops with ``converged`` False.

    Parameters
    ----------
    X, Y : (N, T, D) array_like
    teacher : ``"linear_qk"`` or ``"softmax_qk"``.
    shrinkage : None for the plain variant; ``"auto"`` for τ = ``shrink_multiple`` × the noise edge of
        the current K-step (the same edge as the numerical-rank rule, so τ = 1 × edge removes the noise
        bulk); or an explicit τ ≥ 0 in the units of K (for ``linear_qk`` at the ‖K‖_F = ‖V‖_F scale).
    shrink_multiple : multiple of the noise edge for ``shrinkage="auto"`` (≥ 0).
    tol, max_iter : the stopping rule.
    floor : softmax only, as in ``attention_kernel_v_known``.
    progress : show a tqdm progress bar over iterations.

    Returns
    -------
    AlternatingEstimate
    """
    X, Y = _check(X, Y, teacher=teacher)
    check_positive("tol", tol)
    check_positive("shrink_multiple", shrink_multiple, allow_zero=True)
    if floor is not None:
        check_positive("floor", floor)
    if not (isinstance(max_iter, int) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    if not (shrinkage is None or shrinkage == "auto"):
        check_positive("shrinkage", shrinkage, allow_zero=True)
    softmax = teacher == "softmax_qk"
    D = X.shape[-1]
    K = torch.zeros(D, D, dtype=torch.float64) if softmax else torch.eye(D, dtype=torch.float64)
    V = value_step(X, K, Y, softmax)
    tau, edge, converged, iterations = 0.0, 0.0, False, 0
    regress = score_regression(X, True) if softmax else None
    for step in tqdm(range(1, max_iter + 1), disable=not progress, desc=f"alternating {teacher}"):
        iterations = step
        if softmax:
            K_new, _, edge, _ = regress(recover_mixing(X, Y, V).mixing, floor)
        else:
            K_new, edge = linear_kernel_step(X, Y, V)
        if shrinkage is not None:
            tau = shrink_multiple * edge if shrinkage == "auto" else float(shrinkage)
            K_new = singular_value_soft_threshold(K_new, tau)
        norm_new, norm_old = float(K_new.norm()), float(K.norm())
        if norm_new == 0:
            K = K_new
            break
        change = float((K_new / norm_new - K / norm_old).norm()) if norm_old > 0 else math.inf
        K = K_new
        V = value_step(X, K, Y, softmax)
        if not softmax:
            a = math.sqrt(float(V.norm()) / norm_new)
            K, V = a * K, V / a
        if change <= tol:
            converged = True
            break
    loss = float((Y - attention_scores(X, K, softmax) @ X @ V).pow(2).mean())
    rank, energy = kernel_ranks(K, edge)
    return AlternatingEstimate(K, V, edge, rank, energy, tau, iterations, converged, loss)


def realized_mixer_energy_rank(mixing) -> float:
    """Energy effective rank (eq. 2) of the realized mixer E_X[M(X)], estimated by the sample mean.

    Parameters
    ----------
    mixing : (N, T, T) array_like, per-sample mixing matrices — recovered (``recover_mixing``, data-only)
        or computed from a kernel (``attention_scores(X, K, softmax)``).

    Returns
    -------
    float in [0, T]. Under softmax E_X[M] moves from uniform (rank ≈ 1) towards the identity as the
    scores sharpen; for the linear teacher E_X[X K Xᵀ] = tr(K) I/√D for isotropic X, rank ≈ T.
    """
    M = torch.as_tensor(mixing).detach().to(device="cpu", dtype=torch.float64)
    if M.ndim != 3 or M.numel() == 0 or M.shape[-1] != M.shape[-2]:
        raise ValueError(f"mixing must be a non-empty (N, T, T) array, got shape {tuple(M.shape)}")
    return float(spectral.energy_effective_rank(M.mean(0)))


GUARD = 1e-12  # the least a logarithm needs: entries of M̂ at or below 0 are set to it (a guard, not a noise floor)


def paper_log_inversion(task) -> dict[str, float | int]:
    """The V-known kernel estimate of §6 as the paper describes it ("regression on the recovered scores"),
    with none of the rules ``attention_kernel_v_known`` adds: the scores are log M̂ (entries of M̂ ≤ 0 set to
    ``GUARD`` so that the log exists), regressed on X K Xᵀ/√D with no centring of the rows (the softmax's
    per-row log-normalizer is left in the scores), and the numerical rank counts singular values above
    NumPy's default tolerance at the data's precision, D · ε₃₂ · σ₁ (``spectral.numerical_rank``; the paper
    states none).

    Returns
    -------
    dict with keys paper_numerical_rank, paper_energy_rank (eq. 2 of K̂), paper_relative_error
    (‖K̂ − K*‖_F / ‖K*‖_F) and paper_guarded_fraction (the share of M̂'s entries ≤ 0).
    """
    if getattr(task, "kind", None) not in TEACHERS:
        raise ValueError(f"paper_log_inversion needs an attention task with kind in {TEACHERS}, "
                         f"got {getattr(task, 'kind', None)!r}")
    X, Y, V = _check(task.X, task.Y, task.V)
    mixing = recover_mixing(X, Y, V).mixing
    scores = mixing.clamp_min(GUARD).log() if task.kind == "softmax_qk" else mixing
    K, _, _, _ = score_regression(X, softmax=False)(scores, None)
    K_star = torch.as_tensor(task.operator, dtype=torch.float64)
    return {"paper_numerical_rank": int(spectral.numerical_rank(K)),
            "paper_energy_rank": float(spectral.energy_effective_rank(K)),
            "paper_relative_error": float((K - K_star).norm() / K_star.norm()),
            "paper_guarded_fraction": float((mixing <= 0).double().mean()) if task.kind == "softmax_qk" else 0.0}


def predict_rank(task, *, floor: float | None = None, shrink_multiple: float = 1.0, tol: float = 1e-4,
                 max_iter: int = 50) -> dict[str, float | int | bool]:
    """Run every data-only predictor of r* on one attention task; one flat row for the §6 Table 4.

    Parameters
    ----------
    task : a ``Task`` (or any object with ``kind`` in ``TEACHERS``, ``X``, ``Y`` (N, T, D), ``V`` (D, D)
        and ``operator`` = K* (D, D)).
    floor, shrink_multiple, tol, max_iter : passed to the estimators (see there).

    Returns
    -------
    dict with keys
        teacher_energy_rank : eq. (2) of the true K* (the target; equals r* for a flat spectrum).
        v_known_numerical_rank, v_known_energy_rank : ``attention_kernel_v_known`` ranks of K̂.
        v_known_noise_edge : its noise edge (the numerical-rank threshold is twice this).
        v_known_relative_error : ‖K̂ − K*‖_F / ‖K*‖_F (uses the truth; a diagnostic, not a predictor).
        v_known_mixing_identifiable : whether every X_n V* had full row rank T.
        v_known_clamped_fraction : fraction of M̂ entries clamped at the floor (softmax).
        v_unknown_numerical_rank, v_unknown_energy_rank, v_unknown_iterations, v_unknown_converged,
        v_unknown_loss : plain alternating minimization.
        v_unknown_shrunk_numerical_rank, v_unknown_shrunk_energy_rank, v_unknown_shrunk_iterations,
        v_unknown_shrunk_converged, v_unknown_shrunk_loss : with ``shrinkage="auto"``.
        realized_mixer_energy_rank : eq. (2) of the mean recovered mixing matrix (data-only, V* given).
        realized_mixer_teacher_energy_rank : eq. (2) of the mean of M(X) computed from K* (reference).
    """
    if getattr(task, "kind", None) not in TEACHERS:
        raise ValueError(f"predict_rank needs an attention task with kind in {TEACHERS}, "
                         f"got {getattr(task, 'kind', None)!r}")
    X, Y, V = _check(task.X, task.Y, task.V)
    K_star = torch.as_tensor(task.operator, dtype=torch.float64)
    softmax = task.kind == "softmax_qk"
    known = attention_kernel_v_known(X, Y, V, task.kind, floor=floor)
    row: dict[str, float | int | bool] = {
        "teacher_energy_rank": float(spectral.energy_effective_rank(K_star)),
        "v_known_numerical_rank": known.numerical_rank,
        "v_known_energy_rank": known.energy_effective_rank,
        "v_known_noise_edge": known.noise_edge,
        "v_known_relative_error": float((known.kernel - K_star).norm() / K_star.norm()),
        "v_known_mixing_identifiable": known.mixing_identifiable,
        "v_known_clamped_fraction": known.clamped_fraction,
    }
    for prefix, shrinkage in (("v_unknown", None), ("v_unknown_shrunk", "auto")):
        fit = attention_kernel_v_unknown(X, Y, task.kind, shrinkage=shrinkage, shrink_multiple=shrink_multiple,
                                         tol=tol, max_iter=max_iter, floor=floor)
        row |= {f"{prefix}_numerical_rank": fit.numerical_rank, f"{prefix}_energy_rank": fit.energy_effective_rank,
                f"{prefix}_iterations": fit.iterations, f"{prefix}_converged": fit.converged,
                f"{prefix}_loss": fit.loss}
    row["realized_mixer_energy_rank"] = realized_mixer_energy_rank(recover_mixing(X, Y, V).mixing)
    row["realized_mixer_teacher_energy_rank"] = realized_mixer_energy_rank(attention_scores(X, K_star, softmax))
    return row
