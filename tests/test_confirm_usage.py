"""How confirm calls a target (inference under no_grad, or a whole training step), and that its
listening leaves the user's stderr alone: real torch, in this process."""

from __future__ import annotations

import logging

import pytest

torch = pytest.importorskip("torch")

from breaklint import Example  # noqa: E402
from breaklint.confirm.capture import capture_dynamo  # noqa: E402
from breaklint.confirm.usage import default_loss, make_step, usage_of  # noqa: E402

pytestmark = pytest.mark.dynamo


def test_usage_follows_the_target_unless_the_example_says() -> None:
    net = torch.nn.Linear(4, 4)
    x = torch.randn(2, 4)
    assert usage_of(Example(net, (x,))) == "training"  # a module in train mode
    assert usage_of(Example(net.eval(), (x,))) == "inference"
    assert usage_of(Example(torch.relu, (x,))) == "inference"
    assert usage_of(Example(torch.relu, (x.requires_grad_(),))) == "training"
    assert usage_of(Example(net, (x,), usage="inference")) == "inference"
    with pytest.raises(ValueError, match="usage='serving'"):
        Example(net, (x,), usage="serving")
    with pytest.raises(ValueError, match="grad_mode"):
        Example(net, (x,), grad_mode="eval")


def test_inference_runs_without_grad_as_a_model_is_served() -> None:
    net = torch.nn.Linear(4, 4).eval()
    for grad_mode, check in (("no_grad", lambda: not torch.is_grad_enabled()),
                             ("inference_mode", torch.is_inference_mode_enabled)):
        seen = []
        net.register_forward_hook(lambda *_: seen.append(check()))
        steps, said = make_step(Example(net, (torch.randn(2, 4),), grad_mode=grad_mode), "inference")
        out = steps(net)((torch.randn(2, 4),), {})
        assert said == f"inference under torch.{grad_mode}()"
        assert seen[-1] and not out.requires_grad


def test_a_training_step_runs_backward_and_the_optimizer() -> None:
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    before = [p.detach().clone() for p in net.parameters()]
    example = Example(net, (torch.randn(16, 4),), optimizer=lambda params: torch.optim.SGD(params, lr=0.1))
    steps, said = make_step(example, usage_of(example))
    assert said == "training step: forward, loss, backward, SGD.step()"
    loss = steps(net)(example.args, {})
    assert loss.dim() == 0 and not loss.requires_grad
    assert all(not torch.equal(b, p) for b, p in zip(before, net.parameters()))  # the step moved them
    plain = Example(net, (torch.randn(16, 4),), usage="training")
    steps, said = make_step(plain, "training")
    assert said == "training step: forward, loss, backward"
    steps(net)(plain.args, {})
    steps(net)(plain.args, {})
    once = [p.grad.clone() for p in net.parameters()]
    steps(net)(plain.args, {})
    assert all(torch.equal(a, p.grad) for a, p in zip(once, net.parameters()))  # no accumulation


def test_the_default_loss() -> None:
    scalar = torch.tensor(3.0)
    assert default_loss(scalar) is scalar
    assert float(default_loss(torch.ones(2, 3))) == 6.0
    assert float(default_loss({"loss": scalar, "logits": torch.ones(2)})) == 3.0
    assert float(default_loss((torch.arange(3), torch.ones(2)))) == 2.0  # the first floating tensor
    with pytest.raises(TypeError, match="Example\\(loss=...\\)"):
        default_loss("text")


def test_listening_keeps_a_late_artifact_logger_quiet_and_restores_it(capfd: pytest.CaptureFixture[str]) -> None:
    """An artifact logger made while confirm listens (Inductor imports modules at its first
    compile) would propagate to torch's handler: the user saw our perf hints on stderr."""
    with capture_dynamo() as capture:
        late = torch._logging.getArtifactLogger("torch._inductor.breaklint_test_module", "perf_hints")
        late.info("perf hint the user did not ask for")
        late.warning('skipping cudagraphs due to mutated inputs (1 instances). Found from : \n'
                     '   File "/work/u.py", line 3, in f\n    x.add_(1)')
    assert capfd.readouterr().err == ""
    assert [s.reason for s in capture.cudagraph_skips] == ["mutated inputs (1 instances)"]
    assert late.level == logging.NOTSET and late.filters == [] and late.propagate is False  # as torch makes it
