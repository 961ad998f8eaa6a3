"""Softmax-robust data-only estimators of the teacher kernel K* and its rank ("Beyond the paper": the
softmax predictability frontier, ``sections/frontier``). The task is Y = softmax(X K* Xᵀ/√D) X V* + E
of ``tasks.make_attention_task``; nothing here reads r*, K* or σ.

Two fits of K, each with V given (V-known) or not (V-unknown):

* ``kernel_least_squares`` — the Gaussian maximum-likelihood fit min_K Σ_n ‖Y_n − softmax(S_n(K)) X_n V‖²,
  S_n(K) = X_n K X_nᵀ/√D. V-unknown: V is profiled out (variable projection): for each K it is the exact
  least-squares value map, so the objective is a function of K alone.
* ``kernel_logistic`` — multinomial logistic regression of the recovered attention rows
  M̂_n = Y_n (X_n V)⁺ on softmax(S_n(K)): min_K Σ_{n,i} [logsumexp(S_n(K)_i) − M̂_n,iᵀ S_n(K)_i], convex in K
  for any M̂ (it never takes the log of a noisy weight; its expectation over the noise is minimized at K*).
  V-unknown: alternated with the least-squares V-step.

One reading of the rank for both, with one tuning knob, the threshold τ = 2ê, the noise edge ê measured
from the data on two random halves of the samples (``rank_reading``: ``split_half_edge``, ``read_ranks``).
The logistic fit's own rule at small n: where a half-sample fit diverges while the fit on all n samples
succeeds, its rank is read by the rule that uses every sample (``gavish_donoho_threshold``), and its result
(:class:`LogisticEstimate`) says which reading it used and what failed; ``reading="split_half"`` refuses that
instead (a diverged half is then a failed fit, as the frontier's grid declared).

Shapes: ``N`` samples, ``T`` tokens, ``D`` width, ``R`` rank. Everything is computed in float64 on the CPU.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, fields

import torch

from .attention_estimators import recover_mixing
from .rank_reading import EDGE_MULTIPLE, gavish_donoho_threshold, read_ranks, split_half_edge


@dataclass(frozen=True)
class SoftmaxEstimate:
    """A data-only estimate of (K*, V*) of a softmax teacher and the ranks read from it.

    Attributes
    ----------
    kernel : (D, D) float64 K̂.
    value : (D, D) float64 V̂ (the given V for the V-known fits).
    noise_edge : ê, the noise edge measured by ``split_half_edge``.
    threshold : τ = ``EDGE_MULTIPLE`` · ê.
    numerical_rank : number of singular values of K̂ above τ.
    energy_effective_rank : eq. (2) of K̂ truncated at τ (its singular values ≤ τ set to 0).
    raw_energy_effective_rank : eq. (2) of K̂ itself (noise directions included).
    iterations : L-BFGS iterations (least squares, V-known logistic) or alternation rounds (V-unknown
        logistic) of the full-data fit.
    converged : whether the stopping rule fired before the iteration cap.
    loss : mean squared residual per entry of Y, ‖Y − softmax(S(K̂)) X V̂‖² / (N T D).
    """

    kernel: torch.Tensor
    value: torch.Tensor
    noise_edge: float
    threshold: float
    numerical_rank: int
    energy_effective_rank: float
    raw_energy_effective_rank: float
    iterations: int
    converged: bool
    loss: float


SPLIT_HALF, ALL_N = "split_half", "gavish_donoho"  # the rank readings of kernel_logistic
READINGS = ("auto", SPLIT_HALF)  # what kernel_logistic may use: either reading (as it needs), or the split-half only


@dataclass(frozen=True)
class LogisticEstimate(SoftmaxEstimate):
    """``kernel_logistic``'s estimate: a :class:`SoftmaxEstimate` and the rank reading it used.

    Attributes (beside :class:`SoftmaxEstimate`'s)
    ----------
    reading : ``"split_half"`` (τ = 2ê) or ``"gavish_donoho"``: a half-sample fit diverged while the fit on all
        n samples succeeded, so τ = ``gavish_donoho_threshold`` of K̂'s singular values (``noise_edge`` is NaN).
    half_sample_failure : what the diverged half-sample fit said ("" under the split-half reading).
    """

    reading: str = SPLIT_HALF
    half_sample_failure: str = ""


def checked_inputs(X, Y, V=None):
    """(X, Y, V) as float64 tensors, or ValueError naming the offending shape or value."""
    X, Y = (torch.as_tensor(A).detach().to(device="cpu", dtype=torch.float64) for A in (X, Y))
    for name, A in (("X", X), ("Y", Y)):
        if A.ndim != 3 or A.numel() == 0:
            raise ValueError(f"{name} must be a non-empty (N, T, D) array, got shape {tuple(A.shape)}")
        if not torch.isfinite(A).all():
            raise ValueError(f"{name} holds NaN or Inf values")
    if X.shape != Y.shape:
        raise ValueError(f"X and Y must have the same (N, T, D) shape, got {tuple(X.shape)} and {tuple(Y.shape)}")
    N, T, D = X.shape
    if N < 4:
        raise ValueError(f"need at least 4 samples (two halves of at least 2) to measure the noise edge, got N={N}")
    if T < 2:
        raise ValueError(f"need at least 2 tokens (softmax over one key is constant), got T={T}")
    if V is not None:
        V = torch.as_tensor(V).detach().to(device="cpu", dtype=torch.float64)
        if V.shape != (D, D):
            raise ValueError(f"V must have shape (D, D) = ({D}, {D}) to match X, got {tuple(V.shape)}")
        if not torch.isfinite(V).all():
            raise ValueError("V holds NaN or Inf values")
    return X, Y, V


def _limits(tol, max_iter: int) -> None:
    if isinstance(tol, bool) or not isinstance(tol, int | float) or not (math.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a finite positive number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")


def mixing(X: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """softmax(X K Xᵀ/√D) over keys: (N, T, D), (D, D) → (N, T, T)."""
    return (X @ K @ X.mT / math.sqrt(X.shape[-1])).softmax(-1)


def value_step(X: torch.Tensor, A: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    """The least-squares value map argmin_V Σ_n ‖Y_n − A_n X_n V‖²: (D, D), from the (D, D) normal equations."""
    return _value_from(A @ X, Y)


def _value_from(P: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
    """argmin_V ‖Y − P V‖² for P, Y : (N, T, D), as one (N·T, D) least-squares problem's normal equations."""
    P2, Y2 = P.reshape(-1, P.shape[-1]), Y.reshape(-1, Y.shape[-1])
    return torch.linalg.lstsq(P2.T @ P2, P2.T @ Y2, driver="gelsd").solution


def lbfgs(objective, K0: torch.Tensor, tol: float, max_iter: int) -> tuple[torch.Tensor, int, bool]:
    """Minimize ``objective(K)`` by L-BFGS (strong Wolfe line search, 20 pairs of history) from K0.

    Stopping rule: the largest |gradient entry| ≤ tol, or an iteration that changes the objective or every
    entry of K by ≤ tol · 10⁻⁶ (``converged``), or ``max_iter`` iterations or 3 · ``max_iter`` evaluations
    of the objective (not converged).
    """
    K = K0.clone().requires_grad_(True)
    opt = torch.optim.LBFGS([K], lr=1.0, max_iter=max_iter, max_eval=3 * max_iter, history_size=20,
                            tolerance_grad=tol, tolerance_change=tol * 1e-6, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = objective(K)
        loss.backward()
        return loss

    opt.step(closure)
    state = opt.state[K]
    iterations, evaluations = int(state.get("n_iter", 0)), int(state.get("func_evals", 0))
    return K.detach(), iterations, iterations < max_iter and evaluations < 3 * max_iter


def _squared_error(X, Y, V):
    """K ↦ ‖Y − softmax(S(K)) X V‖² / ‖Y‖², with V fixed or (V None) at its least-squares optimum for K:
    by the envelope theorem the gradient with that optimum held fixed is the profiled objective's gradient."""
    scale = float(Y.pow(2).sum())
    Z = None if V is None else X @ V  # (N, T, D), fixed when V is given

    def objective(K):
        A = mixing(X, K)
        if Z is not None:
            return (Y - A @ Z).pow(2).sum() / scale
        P = A @ X
        return (Y - P @ _value_from(P.detach(), Y)).pow(2).sum() / scale

    return objective


def _cross_entropy(X, M):
    """K ↦ mean over rows of logsumexp(S_i) − M̂_iᵀ S_i: convex in K (S is linear in K, logsumexp convex)."""

    def objective(K):
        S = X @ K @ X.mT / math.sqrt(X.shape[-1])
        return (S.logsumexp(-1) - (M * S).sum(-1)).mean()

    return objective


def _fit_least_squares(X, Y, V, K0, tol, max_iter):
    K, iterations, converged = lbfgs(_squared_error(X, Y, V), K0, tol, max_iter)
    return K, (value_step(X, mixing(X, K), Y) if V is None else V), iterations, converged


ROUND_TOL = 1e-3  # the V-unknown logistic alternation stops when K moves by ≤ 10⁻³ of its norm in a round


def _finite_mixing(K: torch.Tensor, X: torch.Tensor, step: int | None = None) -> torch.Tensor:
    """softmax(S(K)) : (N, T, T) once K is checked, or a ValueError when the logistic K-step diverged: with rows
    M̂ that have negative entries (noise, or T close to D) the cross-entropy is convex but may be unbounded
    below, and K runs off."""
    A = mixing(X, K)
    if not (torch.isfinite(K).all() and torch.isfinite(A).all()):
        raise ValueError("the logistic K-step diverged (K is not finite" + ("" if step is None else
                         f" in round {step}") + "): the recovered rows M̂ are too noisy for a bounded objective")
    return A


def _fit_logistic(X, Y, V, K0, tol, max_iter, rounds):
    """V given: one convex fit on M̂ = Y (X V)⁺. V None: alternate it with the V-step, from the least-squares
    V for K0, stopping when ‖K_k − K_{k−1}‖_F ≤ ROUND_TOL · ‖K_k‖_F or after ``rounds`` rounds; each round's
    K-step is warm-started and solved to a gradient ≤ max(tol, ROUND_TOL · 10⁻⁴)."""
    if V is not None:
        K, iterations, converged = lbfgs(_cross_entropy(X, recover_mixing(X, Y, V).mixing), K0, tol, max_iter)
        _finite_mixing(K, X)
        return K, V, iterations, converged
    K, W = K0, value_step(X, mixing(X, K0), Y)
    for step in range(1, rounds + 1):
        # each round's K-step to a gradient ≤ ROUND_TOL · 10⁻⁴ only: its target moves with V̂ anyway
        K_new, _, _ = lbfgs(_cross_entropy(X, recover_mixing(X, Y, W).mixing), K, max(tol, ROUND_TOL * 1e-4),
                             max_iter)
        A = _finite_mixing(K_new, X, step)  # the mixing the V-step needs, computed once
        moved = float((K_new - K).norm())
        K, W = K_new, value_step(X, A, Y)
        if moved <= ROUND_TOL * float(K.norm()):
            return K, W, step, True
    return K, W, rounds, False


def _estimate(X, Y, V, fit, seed) -> SoftmaxEstimate:
    """Run ``fit(X, Y, K₀)`` → (K̂, V̂, iterations, converged) from K₀ = 0 on all samples and on two halves."""
    K0 = torch.zeros(X.shape[-1], X.shape[-1], dtype=torch.float64)
    K, W, iterations, converged = fit(X, Y, K0)
    edge = split_half_edge(lambda Xh, Yh: fit(Xh, Yh, K0)[0], X, Y, seed)
    rank, energy, raw = read_ranks(K, EDGE_MULTIPLE * edge)
    loss = float((Y - mixing(X, K) @ X @ W).pow(2).mean())
    return SoftmaxEstimate(K, W, edge, EDGE_MULTIPLE * edge, rank, energy, raw, iterations, converged, loss)


def kernel_least_squares(X, Y, V=None, *, tol: float = 1e-10, max_iter: int = 500, seed: int = 0) -> SoftmaxEstimate:
    """Gaussian maximum-likelihood estimate of K* (and V* when ``V`` is None) of a softmax teacher.

    Objective: min_K ‖Y − softmax(X K Xᵀ/√D) X V‖² / ‖Y‖² over all (D, D) matrices K (no symmetry
    assumed), with V the given value map (V-known) or, V-unknown, the least-squares V for each K
    (variable projection: the minimum over V is exact, a (D, D) linear system). No regularization: the
    noise is handled by the rank reading. Start K₀ = 0 (uniform attention); L-BFGS with the stopping rule
    of ``lbfgs`` (``tol``, ``max_iter``). Rank reading: ``read_ranks`` at τ = 2ê, ê from
    ``split_half_edge`` (each half fitted by the same rule from K₀ = 0), the one knob, chosen from the data.

    Parameters
    ----------
    X, Y : (N, T, D) array_like, N ≥ 4, T ≥ 2.
    V : (D, D) array_like or None (V-unknown).
    tol, max_iter : the L-BFGS stopping rule.
    seed : the random split of ``split_half_edge``.

    Returns
    -------
    SoftmaxEstimate
    """
    X, Y, V = checked_inputs(X, Y, V)
    _limits(tol, max_iter)
    return _estimate(X, Y, V, lambda Xh, Yh, K0: _fit_least_squares(Xh, Yh, V, K0, tol, max_iter), seed)


def kernel_logistic(X, Y, V=None, *, tol: float = 1e-10, max_iter: int = 500, rounds: int = 30,
                    seed: int = 0, reading: str = "auto") -> LogisticEstimate:
    """Multinomial-logistic estimate of K* of a softmax teacher from recovered attention rows.

    Objective (K-step): min_K (1/NT) Σ_{n,i} [logsumexp(S_n,i) − M̂_n,iᵀ S_n,i], S_n = X_n K X_nᵀ/√D,
    M̂_n = Y_n (X_n V)⁺ (``attention_estimators.recover_mixing``): the cross-entropy of the rows with soft
    targets, written so that it is convex in K whatever the signs of M̂ (rows of M sum to 1). No
    regularization; L-BFGS from K₀ = 0 with the stopping rule of ``lbfgs``. V-unknown: alternate the
    K-step (warm-started) with the least-squares V-step, starting from V₀ = the least-squares V for K₀ = 0,
    until ‖K_k − K_{k−1}‖_F ≤ ``ROUND_TOL`` · ‖K_k‖_F or ``rounds`` rounds. Rank reading as in
    ``kernel_least_squares`` (τ = 2ê, ê from the halves, each fitted by the same rule from K₀ = 0); at small n,
    where a half-sample fit diverges while the fit on all n samples succeeds, the Gavish–Donoho threshold of
    K̂ (``reading="auto"``, the default; the frontier's phase cells declared this rule), or a ValueError
    (``reading="split_half"``).

    Parameters
    ----------
    X, Y : (N, T, D) array_like, N ≥ 4, 2 ≤ T ≤ D (M is identifiable from one sample only when T ≤ D).
    V : (D, D) array_like or None (V-unknown).
    tol, max_iter : the stopping rule of each L-BFGS fit; rounds : cap of the V-unknown alternation.
    seed : the random split of ``split_half_edge``.
    reading : ``"auto"`` or ``"split_half"`` (see above).

    Returns
    -------
    LogisticEstimate, whose ``reading`` says which rule read the rank. A fit that diverges on all n samples
    raises ValueError.
    """
    X, Y, V = checked_inputs(X, Y, V)
    _limits(tol, max_iter)
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds!r}")
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
    T, D = X.shape[-2:]
    if T > D:
        raise ValueError(f"the attention rows are not identifiable from one sample when T > D (T={T}, D={D}); "
                         "use kernel_least_squares")

    def fit(Xh, Yh, K0):
        return _fit_logistic(Xh, Yh, V, K0, tol, max_iter, rounds)

    try:
        estimate = _estimate(X, Y, V, fit, seed)
    except ValueError as error:  # a diverged fit: of a half (read on all n below), or of all n (raised again there)
        if reading == SPLIT_HALF:
            raise
        return _read_on_all_samples(X, Y, fit, str(error))
    return LogisticEstimate(**{f.name: getattr(estimate, f.name) for f in fields(estimate)})


def _read_on_all_samples(X, Y, fit, failure: str) -> LogisticEstimate:
    """The fit on all n samples, its rank read at the Gavish–Donoho threshold of its singular values; ``failure``
    is what the half-sample fit said. Raises the fit's ValueError where the fit on all n samples fails too."""
    K, W, iterations, converged = fit(X, Y, torch.zeros(X.shape[-1], X.shape[-1], dtype=torch.float64))
    threshold = gavish_donoho_threshold(torch.linalg.svdvals(K))
    rank, energy, raw = read_ranks(K, threshold)
    loss = float((Y - mixing(X, K) @ X @ W).pow(2).mean())
    return LogisticEstimate(K, W, math.nan, threshold, rank, energy, raw, iterations, converged, loss, ALL_N, failure)


ESTIMATORS = {  # name → (function, whether it is given V*)
    "v_known_least_squares": (kernel_least_squares, True),
    "v_known_logistic": (kernel_logistic, True),
    "v_unknown_least_squares": (kernel_least_squares, False),
    "v_unknown_logistic": (kernel_logistic, False),
}


def estimate_task(task, names=tuple(ESTIMATORS), *, seed: int = 0) -> dict[str, dict]:
    """Run the named estimators on a softmax task, reading only ``task.X``, ``task.Y`` and (V-known) ``task.V``.

    Returns ``name → {numerical_rank, energy_rank, raw_energy_rank, noise_edge, iterations, converged,
    loss, seconds}``; everything but ``seconds`` (wall time) is a function of the data and ``seed`` alone.
    """
    if getattr(task, "kind", None) != "softmax_qk":
        raise ValueError(f"estimate_task needs a softmax_qk task, got kind {getattr(task, 'kind', None)!r}")
    unknown = sorted(set(names) - set(ESTIMATORS))
    if unknown:
        raise ValueError(f"unknown estimator(s) {unknown}; expected some of {list(ESTIMATORS)}")
    out = {}
    for name in names:
        function, v_known = ESTIMATORS[name]
        start = time.perf_counter()
        fit = function(task.X, task.Y, task.V if v_known else None, seed=seed)
        out[name] = {"numerical_rank": fit.numerical_rank, "energy_rank": fit.energy_effective_rank,
                     "raw_energy_rank": fit.raw_energy_effective_rank, "noise_edge": fit.noise_edge,
                     "iterations": fit.iterations, "converged": fit.converged, "loss": fit.loss,
                     "seconds": time.perf_counter() - start}
    return out
