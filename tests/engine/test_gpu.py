"""The CUDA path: batched training on a GPU equals training on the CPU within float tolerance.

Runs only where CUDA is available (a GPU machine); skipped, with the reason, everywhere else."""

import numpy as np
import pytest
import torch

from entropic.engine.lm import charlm
from entropic.engine.lm import train as lm_train
from entropic.engine.synthetic.models import QKStudents
from entropic.engine.synthetic.tasks import make_attention_task
from entropic.engine.synthetic.train import train

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")


@pytest.mark.parametrize("teacher", ["linear_qk", "softmax_qk"])
def test_batched_attention_students_train_on_cuda_as_on_the_cpu(teacher):
    task = make_attention_task(teacher, T=8, d=8, r_star=2, n=128, sigma=0.05, seed=0)
    runs = {}
    for device in ("cpu", "cuda"):
        students = QKStudents([0], [1, 2, 3, 4], 8, 8, softmax=teacher == "softmax_qk")
        result = train(students, task.X, task.Y, steps=200, lr=1e-2, progress=False, device=device)
        runs[device] = (result.tail_min, students.kernel().detach().cpu())
    np.testing.assert_allclose(runs["cuda"][0], runs["cpu"][0], rtol=1e-3)
    torch.testing.assert_close(runs["cuda"][1], runs["cpu"][1], rtol=1e-2, atol=1e-3)


def test_the_batched_char_lm_trains_on_cuda_as_on_the_cpu():
    tokens = np.random.default_rng(0).integers(0, 11, 4000)
    runs = {}
    for device in ("cpu", "cuda"):
        model = charlm.CharLM([0, 1], vocab_size=11, context=16, d_model=32)
        runs[device] = lm_train.train_charlm(model, tokens, steps=20, batch_size=8, lr=1e-3, device=device,
                                             progress=False).history
    # TF32 products on the GPU: agreement to about three digits, not to float32's seven.
    np.testing.assert_allclose(runs["cuda"], runs["cpu"], rtol=5e-3)
