import pytest

from entropic.configs import SurrogateConfig


def test_defaults_are_the_papers_section_4_sizes():
    cfg = SurrogateConfig()
    assert (cfg.T, cfg.d, cfg.r_star, cfg.sigma, cfg.n) == (16, 12, 3, 0.05, 3000)
    assert cfg.sweep_ranks == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("params, name", [
    (dict(r_star=17), "r_star"),
    (dict(r_star=9), "r_star"),          # sweep up to 18 > T
    (dict(sigma=-0.1), "sigma"),
    (dict(n=0), "n"),
    (dict(T=2.5), "T"),
    (dict(seeds=[]), "seeds"),
    (dict(seeds=[0, 0]), "seeds"),
    (dict(spectrum="steep"), "spectrum"),
    (dict(lr=0), "lr"),
    (dict(recovery_init=-1.0), "recovery_init"),
])
def test_invalid_parameters_fail_fast_naming_the_parameter(params, name):
    with pytest.raises(ValueError, match=name):
        SurrogateConfig(**params)


def test_unknown_parameter_names_are_rejected():
    with pytest.raises(ValueError, match=r"unknown parameter.*rstar"):
        SurrogateConfig.from_params({"rstar": 3})
