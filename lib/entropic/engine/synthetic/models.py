"""Batched students: G groups × S students trained as one tensor program.

Every model holds parameters with leading shape (G, S): group g shares one task's inputs X[g], and
the S students of a group differ in rank (and initialization). Students of lower rank than the
group's widest are zero-padded and masked: padded columns get exactly zero gradient, so Adam leaves
them at zero and a padded student computes exactly what it would compute alone.

``forward(X)`` takes X : (G, N, T, D) and returns predictions of shape (G, S, N, T, D). Where the
students of a group share a product with X, it is one matrix product against all their weights,
which reads X once.

Ladder of §5 (each a class here): B0 ``SurrogateStudents``, B1 ``QKStudents(softmax=False)``,
B1c ``FullKernelStudents``, B2 ``QKStudents(softmax=True)``, B3 ``BlockStudents``.
§6 uses ``QKStudents`` (linear and softmax), §4 uses ``SurrogateStudents``.

Choices the paper leaves open, made here:
* attention scores are scaled by 1/√D in every attention student (App. C, eq. 9);
* initialization: factor matrices ~ N(0, 1/fan_in) × ``init_scale``, value maps ~ N(0, 1/D);
* B3 is a pre-LayerNorm block, out = H + FFN(LN₂(H)) with H = X + Attn(LN₁(X)), FFN width 4·D, GELU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn


def _student_generator(seed: int, rank: int) -> torch.Generator:
    # A student's initial weights depend only on (its group's seed, its rank): the same student drawn
    # inside a batch or alone starts from identical weights, so batched and looped runs are comparable.
    return torch.Generator().manual_seed(seed * 1_000_003 + rank * 7_919 + 1)


class BatchedStudents(nn.Module):
    """Base class: registers (G, S, ...) parameters drawn per student, and the rank mask.

    Parameters
    ----------
    seeds : one initialization seed per group (G = len(seeds)); the task's seed, by convention.
    ranks : the S student ranks (the same list for every group).
    T, D : tokens and width of the task.
    init_scale : multiplier on the rank-carrying factors (App. C uses 0.3 for recovery).
    """

    def __init__(self, seeds: Sequence[int], ranks: Sequence[int], T: int, D: int,
                 init_scale: float = 1.0, max_rank: int | None = None):
        super().__init__()
        ranks, seeds = [int(r) for r in ranks], [int(s) for s in seeds]
        if not seeds or not ranks:
            raise ValueError(f"need at least one group and one student, got seeds={seeds}, ranks={ranks}")
        limit = max_rank if max_rank is not None else D
        if min(ranks) < 1 or max(ranks) > limit:
            raise ValueError(f"student ranks must lie in [1, {limit}], got {ranks}")
        if init_scale <= 0:
            raise ValueError(f"init_scale must be positive, got {init_scale}")
        self.G, self.S, self.T, self.D = len(seeds), len(ranks), T, D
        self.seeds, self.ranks = seeds, ranks
        self.R = max(ranks)
        mask = torch.arange(self.R)[None, :] < torch.tensor(ranks)[:, None]  # (S, R)
        self.register_buffer("mask", mask.float()[None, :, None, :])  # (1, S, 1, R)

    def _draw(self, shapes: dict[str, tuple[tuple[int, ...], float, bool]]) -> None:
        """Register parameters ``name -> (shape, std, ranked)``; ranked ones have R as last axis."""
        tensors = {name: torch.zeros(self.G, self.S, *shape) for name, (shape, _, _) in shapes.items()}
        for g, seed in enumerate(self.seeds):
            for s, r in enumerate(self.ranks):
                gen = _student_generator(seed, r)
                for name, (shape, std, ranked) in shapes.items():
                    own = (*shape[:-1], r) if ranked else shape
                    draw = torch.randn(*own, generator=gen) * std
                    tensors[name][g, s, ..., : own[-1]] = draw
        for name, tensor in tensors.items():
            self.register_parameter(name, nn.Parameter(tensor))

    def select(self, groups: Sequence[int], students: Sequence[int]) -> None:
        """Keep only the listed groups and students in the bookkeeping (the trainer slices the
        parameters themselves when converged students leave the batch)."""
        self.seeds = [self.seeds[g] for g in groups]
        self.ranks = [self.ranks[s] for s in students]
        self.G, self.S = len(self.seeds), len(self.ranks)
        self.mask = self.mask[:, list(students)]

    def kernel(self) -> torch.Tensor:
        """The static operator whose rank is constrained: (G, S, ·, ·)."""
        raise NotImplementedError

    def loss(self, X: torch.Tensor, Y: torch.Tensor) -> torch.Tensor:
        """Σ over samples of ‖Y − Ŷ‖²_F for every student: (G, S). X, Y : (G, N, T, D)."""
        return (self(X) - Y.unsqueeze(1)).pow(2).sum((2, 3, 4))

    def mixer(self, X: torch.Tensor) -> torch.Tensor:
        """The realized token-mixing matrix M(X): (G, S, N, T, T) for X : (G, N, T, D)."""
        raise NotImplementedError


def _apply_values(Z: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """Z : (G, N, T, S, D) mixed inputs, V : (G, S, D, D) → (G, S, N, T, D)."""
    return torch.einsum("gntsd,gsde->gsnte", Z, V)


class _ValueMapLoss(torch.autograd.Function):
    """Σ_rows ‖Z_s V_s − Y‖² per student, the value map and the squared error fused.

    Z : (G, M, S, D) mixed inputs (M = N·T rows, students interleaved as the mixing produced them);
    V : (G, S, D, D); Y : (G, M, D). Returns (G, S).

    Forward is one GEMM per student that also subtracts Y (``baddbmm``) and one fused reduction;
    backward is two GEMMs against the saved residual R, with the scale 2·g folded into the small
    (D, D) factors. Written out, autograd would add several elementwise passes over the (G, S, M, D)
    residual, which on a CPU cost as much as all the matrix products.
    """

    @staticmethod
    def forward(ctx, Z, V, Y):
        G, M, S, D = Z.shape
        Zs = Z.permute(0, 2, 1, 3)  # (G, S, M, D): a strided view, rows M apart by S·D
        R = torch.empty(G, S, M, D, dtype=Z.dtype, device=Z.device)
        for g in range(G):
            torch.baddbmm(Y[g].unsqueeze(0).expand(S, M, D), Zs[g], V[g], beta=-1, out=R[g])
        ctx.save_for_backward(Z, V, R)
        return torch.linalg.vector_norm(R, dim=(2, 3)).square()

    @staticmethod
    def backward(ctx, grad):
        Z, V, R = ctx.saved_tensors
        scale = 2 * grad[:, :, None, None]  # (G, S, 1, 1)
        grad_Z = (R @ (V * scale).transpose(-1, -2)).permute(0, 2, 1, 3)  # back to (G, M, S, D)
        grad_V = Z.permute(0, 2, 3, 1) @ R * scale
        return grad_Z, grad_V, None


class SurrogateStudents(BatchedStudents):
    """B0 / §4 student: Ŷ = A X V with A = P Qᵀ, P, Q : (T, r). Rank is bounded by T."""

    def __init__(self, seeds, ranks, T, D, init_scale=1.0):
        super().__init__(seeds, ranks, T, D, init_scale, max_rank=T)
        self._draw({
            "P": ((T, self.R), init_scale / math.sqrt(T), True),
            "Q": ((T, self.R), init_scale / math.sqrt(T), True),
            "V": ((D, D), 1 / math.sqrt(D), False),
        })

    def kernel(self):
        return (self.P * self.mask) @ self.Q.transpose(-1, -2)  # (G, S, T, T)

    def mixer(self, X):
        A = self.kernel()
        return A[:, :, None].expand(-1, -1, X.shape[1], -1, -1)

    def forward(self, X):
        XV = torch.einsum("gnud,gsde->gnuse", X, self.V)  # one product of X against all V
        return torch.einsum("gstu,gnuse->gsnte", self.kernel(), XV)


class _KernelAttention(BatchedStudents):
    """Shared forward of the attention students, written in kernel form.

    Scores X K Xᵀ/√D are computed as (X K/√D) Xᵀ with K : (D, D): the per-sample work does not
    depend on the student's rank (padding costs nothing per sample), X @ [K₁ … K_S] is one matrix
    product per group, and the 1/√D scale touches the (D, D) kernels, not the (T, T) scores.
    """

    softmax: bool = False

    def _scores(self, X: torch.Tensor) -> torch.Tensor:
        """Mixing weights of every student, (G·N, T·S, T) with rows ordered (t, s)."""
        G, N, T, D = X.shape
        K = self.kernel() / math.sqrt(D)  # (G, S, D, D)
        XK = X.reshape(G, N * T, D) @ K.permute(0, 2, 1, 3).reshape(G, D, self.S * D)
        scores = XK.reshape(G * N, T * self.S, D) @ X.reshape(G * N, T, D).transpose(1, 2)
        return scores.softmax(-1) if self.softmax else scores

    def mixer(self, X):
        G, N, T, _ = X.shape
        return self._scores(X).reshape(G, N, T, self.S, T).permute(0, 3, 1, 2, 4)  # (G, S, N, T, T)

    def _mixed(self, X: torch.Tensor) -> torch.Tensor:
        """M(X) X for every student: (G·N, T·S, D), rows ordered (t, s)."""
        G, N, T, D = X.shape
        return self._scores(X) @ X.reshape(G * N, T, D)

    def forward(self, X):
        G, N, T, D = X.shape
        return _apply_values(self._mixed(X).reshape(G, N, T, self.S, D), self.V)

    def loss(self, X, Y):
        G, N, T, D = X.shape
        Z = self._mixed(X).reshape(G, N * T, self.S, D)
        return _ValueMapLoss.apply(Z, self.V, Y.reshape(G, N * T, D))


class QKStudents(_KernelAttention):
    """B1 (``softmax=False``) and B2 / §6 students: M(X) = [softmax]((X W_Q)(X W_K)ᵀ/√D), Ŷ = M X V,
    with W_Q, W_K : (D, r), so K = W_Q W_Kᵀ has rank ≤ r."""

    def __init__(self, seeds, ranks, T, D, init_scale=1.0, softmax=False):
        super().__init__(seeds, ranks, T, D, init_scale)
        self.softmax = softmax
        self._draw({
            "W_Q": ((D, self.R), init_scale / math.sqrt(D), True),
            "W_K": ((D, self.R), init_scale / math.sqrt(D), True),
            "V": ((D, D), 1 / math.sqrt(D), False),
        })

    def kernel(self):
        return (self.W_Q * self.mask) @ self.W_K.transpose(-1, -2)  # (G, S, D, D)


class FullKernelStudents(_KernelAttention):
    """B1c, the control: M(X) = X K Xᵀ/√D with an unconstrained (D, D) kernel K (full rank).

    ``ranks`` only labels the students; K is never rank-constrained.
    """

    def __init__(self, seeds, ranks, T, D, init_scale=1.0, softmax=False):
        super().__init__(seeds, ranks, T, D, init_scale)
        self.softmax = softmax
        self.mask.fill_(1.0)
        self._draw({
            "K": ((D, D), init_scale / math.sqrt(D), False),
            "V": ((D, D), 1 / math.sqrt(D), False),
        })

    def kernel(self):
        return self.K


def _layer_norm(Z: torch.Tensor, gain: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Per-student LayerNorm over features. Z : (G, S, N, T, D); gain, bias : (G, S, D)."""
    Z = torch.nn.functional.layer_norm(Z, Z.shape[-1:])
    return Z * gain[:, :, None, None] + bias[:, :, None, None]


def _per_student(Z: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """Z : (G, S, N, T, A) @ W : (G, S, A, B) → (G, S, N, T, B), as one (N·T)-row product per student."""
    G, S, N, T, A = Z.shape
    return (Z.reshape(G, S, N * T, A) @ W).reshape(G, S, N, T, W.shape[-1])


class BlockStudents(BatchedStudents):
    """B3: a full pre-LayerNorm softmax attention block with residual connections and a GELU FFN
    of width 4·D. The rank constraint sits on the QK kernel, as in B2."""

    def __init__(self, seeds, ranks, T, D, init_scale=1.0):
        super().__init__(seeds, ranks, T, D, init_scale)
        F = 4 * D
        self._draw({
            "W_Q": ((D, self.R), init_scale / math.sqrt(D), True),
            "W_K": ((D, self.R), init_scale / math.sqrt(D), True),
            "V": ((D, D), 1 / math.sqrt(D), False),
            "W_1": ((D, F), 1 / math.sqrt(D), False),
            "W_2": ((F, D), 1 / math.sqrt(F), False),
        })
        G, S = self.G, self.S
        self.ln1_gain = nn.Parameter(torch.ones(G, S, D))
        self.ln1_bias = nn.Parameter(torch.zeros(G, S, D))
        self.ln2_gain = nn.Parameter(torch.ones(G, S, D))
        self.ln2_bias = nn.Parameter(torch.zeros(G, S, D))
        self.b_1 = nn.Parameter(torch.zeros(G, S, F))
        self.b_2 = nn.Parameter(torch.zeros(G, S, D))

    def kernel(self):
        return (self.W_Q * self.mask) @ self.W_K.transpose(-1, -2)

    def _attention_input(self, X):
        return _layer_norm(X[:, None].expand(-1, self.S, -1, -1, -1), self.ln1_gain, self.ln1_bias)

    def _mixer_of(self, Z):
        return (_per_student(Z, self.kernel()) @ Z.transpose(-1, -2) / math.sqrt(self.D)).softmax(-1)

    def mixer(self, X):
        return self._mixer_of(self._attention_input(X))  # (G, S, N, T, T)

    def forward(self, X):
        Z = self._attention_input(X)  # (G, S, N, T, D)
        H = X[:, None] + self._mixer_of(Z) @ _per_student(Z, self.V)
        U = _layer_norm(H, self.ln2_gain, self.ln2_bias)
        hidden = torch.nn.functional.gelu(_per_student(U, self.W_1) + self.b_1[:, :, None, None])
        return H + _per_student(hidden, self.W_2) + self.b_2[:, :, None, None]  # (G, S, N, T, D)


LADDER = {"B0": SurrogateStudents, "B1": QKStudents, "B1c": FullKernelStudents,
          "B2": QKStudents, "B3": BlockStudents}
LADDER_OPTIONS = {"B1": {"softmax": False}, "B2": {"softmax": True}}


def ladder_students(rung: str, seeds: Sequence[int], ranks: Sequence[int], T: int, D: int,
                    init_scale: float = 1.0) -> BatchedStudents:
    """Build the students of one rung of the §5 interpolation ladder (B0, B1, B1c, B2, B3)."""
    if rung not in LADDER:
        raise ValueError(f"unknown ladder rung {rung!r}; expected one of {tuple(LADDER)}")
    return LADDER[rung](seeds, ranks, T, D, init_scale=init_scale, **LADDER_OPTIONS.get(rung, {}))
