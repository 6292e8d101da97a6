"""Every op the device registers, through PyTorch on the lazygen device vs PyTorch on the CPU.

The inputs are the consistency suite's (tests/runtime/consistency/op_inputs.h, dumped by
op_cases_json): every dtype and mixed dtypes, broadcasts, 0-dim and zero-size tensors, views as
inputs (transposed, sliced, expanded), listed samples, in-place ops and out= ops (with an empty
out tensor, which PyTorch resizes). For each case both raise, or both give the same dtype, sizes
and values: exact for integers and bools; float32 within 1e-5 relative (1e-6 absolute), float64
within 1e-12. Known differences are listed in KNOWN_DIFFERENCES with the reason for each.
"""
import json
import os
import subprocess

import pytest
import torch

import lazygen_torch

TOOL = os.environ.get("LAZYGEN_OP_CASES_JSON") or os.path.join(
    os.path.dirname(lazygen_torch.__file__), "..", "..", "tests", "runtime", "consistency",
    "op_cases_json")

# (op, dtypes label) -> why the device and PyTorch differ there on purpose. Skipped.
_PYTORCH_ASSERTS = ("PyTorch 1.13's CPU kernel fails an internal assert (needs_dynamic_casting) on "
                    "mixed float dtypes; lazygen computes them")
KNOWN_DIFFERENCES = {("addcmul_", "mixed"): _PYTORCH_ASSERTS, ("addcdiv_", "mixed"): _PYTORCH_ASSERTS}

# op -> (what PyTorch's CPU raises, the op whose CPU result the device's must equal instead, why).
# Device tensors report contiguous strides, so view() of any of them succeeds, as with LTC's
# lazy tensors; the result is then what reshape() gives on the CPU.
DELIBERATE = {
    "view": ("is not compatible with input tensor's size and stride", "reshape",
             "a view of a device tensor always succeeds (device tensors are contiguous)"),
}


# op -> why PyTorch's CPU kernel is wrong on non-contiguous inputs: the expected result is then
# the kernel's on contiguous copies of the same values.
CONTIGUOUS_REFERENCE = {
    "_softmax_backward_data": "PyTorch 1.13's CPU kernel reads transposed grad_output/output as if "
                              "contiguous (softmax never gives it such inputs)",
}


# op -> why PyTorch's CPU kernel answers differently by an element's position: the expected result
# is then PyTorch's kernel applied to one element at a time (its scalar path), on broadcast inputs.
ELEMENTWISE_REFERENCE = {
    "hardswish_backward": "at self == 3 PyTorch 1.13's vectorized kernel gives grad_output, its "
                          "scalar tail 1.5 * grad_output (hardswish's formula); lazygen follows "
                          "the formula",
}


# op -> why the order of indices among equal values is not PyTorch's: the device's indices are
# then checked to select the device's values from self (values are compared as usual).
TIE_ORDER = {
    "topk": "PyTorch 1.13's CPU topk selects with nth_element, which leaves the order of equal "
            "values unspecified; lazygen keeps them in index order",
}


def indices_select_values(op, case, got):
    """'' when got's indices (output 1) gather got's values (output 0) from self, else why."""
    args, kwargs = arguments(op, case, "cpu", None)
    self, dim = args[0], (args[2] if len(args) > 2 else kwargs.get("dim", -1))
    values, indices = got[0], got[1]
    if self.dim() == 0:
        return "" if torch.equal(values, self) else f"values {values} are not self {self}"
    picked = self.gather(dim, indices)
    return "" if torch.equal(picked, values) or torch.allclose(picked, values, equal_nan=True) else \
        f"indices {indices.flatten()[:8].tolist()} do not select the values {values.flatten()[:8].tolist()}"


def elementwise_outcome(op, case):
    """PyTorch's CPU result of a pointwise op computed one element at a time."""
    try:
        args, kwargs = arguments(op, case, "cpu", None)
        tensors = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        expanded = torch.broadcast_tensors(*[args[i] for i in tensors])
        whole = overload(op)(*args, **kwargs)
        flat = whole.reshape(-1).clone()
        for k in range(flat.numel()):
            one = list(args)
            for i, t in zip(tensors, expanded):
                one[i] = t.reshape(-1)[k:k + 1].clone()
            flat[k] = overload(op)(*one, **kwargs)[0]
    except Exception as e:  # noqa: BLE001  (any error counts as raising)
        return e
    return [flat.reshape(whole.shape)]


def contiguous_case(case):
    args = []
    for v in case["args"]:
        if "tensor" in v and v["tensor"]["layout"] in ("transposed", "sliced"):
            v = {"tensor": dict(v["tensor"], layout="contiguous")}
        args.append(v)
    return dict(case, args=args)


def empty_inputs(case):
    return any("tensor" in v and 0 in v["tensor"]["sizes"] for v in case["args"])


# (op, what the device raises) -> why the device may refuse where PyTorch runs: some of PyTorch's
# kernels return early for empty inputs before checking dtypes (mm then returns self's dtype, bmm
# mat2's, _softmax of integers an integer tensor); lazygen checks dtypes whatever the sizes.
_EMPTY = "PyTorch skips its dtype check for empty inputs; lazygen checks them always"
REFUSED_ON_EMPTY = {
    ("mm", "expected both operands to have the same dtype"): _EMPTY,
    ("bmm", "expected both operands to have the same dtype"): _EMPTY,
    ("mm", "not implemented for"): _EMPTY, ("bmm", "not implemented for"): _EMPTY,
    ("addmm", "not implemented for"): _EMPTY, ("_softmax", "not implemented for"): _EMPTY,
    ("_log_softmax", "not implemented for"): _EMPTY, ("argmax", "not implemented for"): _EMPTY,
}
REFUSED_ON_EMPTY_TEXTS = {text for _, text in REFUSED_ON_EMPTY}

# (op, dtypes label) -> a lazygen bug this suite found, not yet fixed (issue #22: every op behaves
# exactly like PyTorch's). Strict xfail: a fixed entry fails until it is removed from here.
KNOWN_BUGS = {}


def load_cases():
    run = subprocess.run([TOOL], capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


CASES = load_cases()
REGISTERED = {name for name, origin, registered, _ in lazygen_torch.registration_report()
              if registered and origin == "generated"}
PARAMS = [pytest.param(op, label, id=f"{op}-{label}", marks=[pytest.mark.xfail(
              reason=f"issue #22: {KNOWN_BUGS[(op, label)]}", strict=True)] if (op, label) in KNOWN_BUGS else [])
          for op, record in CASES.items() if op in REGISTERED
          for label in dict.fromkeys(case["dtypes"] for case in record["cases"])]


def overload(name):
    base, _, suffix = name.partition(".")
    return getattr(getattr(torch.ops.aten, base), suffix or "default")


def make_tensor(spec, device):
    dtype = getattr(torch, spec["dtype"])
    values = torch.tensor(spec["values"], dtype=torch.float64).reshape(spec["sizes"]).to(dtype)
    layout = spec["layout"]
    if layout == "transposed":
        return values.transpose(-2, -1).contiguous().to(device).transpose(-2, -1)
    if layout == "sliced":
        sizes = list(values.shape)
        sizes[-1] *= 2
        storage = torch.full(sizes, 99, dtype=dtype)
        storage[..., ::2] = values
        return storage.to(device)[..., ::2]
    if layout == "expanded":
        return values.to(device).expand(spec["expand_to"])
    return values.to(device)


def make_value(value, device, out_like):
    if "tensor" in value:
        return make_tensor(value["tensor"], device)
    if "tensors" in value:
        return [make_tensor(t, device) for t in value["tensors"]]
    if "out" in value:
        return torch.empty(0, dtype=out_like, device=device)
    if "scalar" in value:
        return {"bool": bool, "int": int, "float": float}[value["kind"]](value["scalar"])
    if "dtype" in value:
        return getattr(torch, value["dtype"])
    if "none" in value:
        return None
    (kind, v), = value.items()
    return v  # int, ints, float, bool, str


def arguments(op, case, device, out_like):
    """(positional, keyword) arguments of `op` for `case` on `device`: positional up to the first
    keyword-only argument or omitted default (a value JSON cannot carry), keywords after."""
    args, kwargs = [], {}
    for i, (arg, value) in enumerate(zip(overload(op)._schema.arguments, case["args"])):
        if "default" in value:
            continue
        if arg.kwarg_only or len(args) < i:
            kwargs[arg.name] = make_value(value, device, out_like)
        else:
            args.append(make_value(value, device, out_like))
    return args, kwargs


def outcome(op, case, device, out_like):
    """(results on the CPU, written arguments on the CPU) or the exception raised."""
    try:
        args, kwargs = arguments(op, case, device, out_like)
        result = overload(op)(*args, **kwargs)
    except Exception as e:  # noqa: BLE001  (any error counts as raising)
        return e
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    schema = overload(op)._schema.arguments
    written = [args[i] if i < len(args) else kwargs[a.name] for i, a in enumerate(schema)
               if a.alias_info is not None and a.alias_info.is_write]
    return [t.cpu() if isinstance(t, torch.Tensor) else t for t in results + written]


def out_dtype(op, record, case):
    """The dtype of an out= tensor: what PyTorch's functional op returns on these inputs."""
    if not any("out" in v for v in case["args"]) or not record["functional"]:
        return None
    values = {a.name: make_value(v, "cpu", None) for a, v in
              zip(overload(op)._schema.arguments, case["args"]) if "out" not in v and "default" not in v}
    args = [values[a.name] for a in overload(record["functional"])._schema.arguments if a.name in values]
    try:
        return overload(record["functional"])(*args).dtype
    except Exception:  # noqa: BLE001  (the out= op must raise too)
        return torch.float32


def difference(expected, got):
    """'' when the device's outcome matches PyTorch's CPU outcome, else what differs."""
    if isinstance(expected, Exception) or isinstance(got, Exception):
        if isinstance(expected, Exception) == isinstance(got, Exception):
            return ""
        return (f"PyTorch raised {type(expected).__name__}: {expected}; the device ran"
                if isinstance(expected, Exception) else
                f"PyTorch ran; the device raised {type(got).__name__}: {got}")
    for i, (e, g) in enumerate(zip(expected, got)):
        if not isinstance(e, torch.Tensor):
            if e != g:
                return f"output {i}: {g}, PyTorch {e}"
            continue
        if g.dtype != e.dtype or g.shape != e.shape:
            return f"output {i}: {g.dtype}{list(g.shape)}, PyTorch {e.dtype}{list(e.shape)}"
        if e.dtype.is_floating_point:
            tol = dict(rtol=1e-5, atol=1e-6) if e.dtype == torch.float32 else dict(rtol=1e-12, atol=1e-12)
            if not torch.allclose(g, e, equal_nan=True, **tol):
                return f"output {i}: {g.flatten()[:8].tolist()}, PyTorch {e.flatten()[:8].tolist()}"
        elif not torch.equal(g, e):
            return f"output {i}: {g.flatten()[:8].tolist()}, PyTorch {e.flatten()[:8].tolist()}"
    return ""


def describe(case):
    parts = []
    for v in case["args"]:
        if "tensor" in v:
            t = v["tensor"]
            parts.append(f"{t['dtype']}{t['sizes']}" + ("" if t["layout"] == "contiguous" else " " + t["layout"]))
        elif "tensors" in v:
            parts.append(f"{len(v['tensors'])} tensors")
        else:
            parts.append(json.dumps(v))
    return f"{case['label']} ({', '.join(parts)})"


@pytest.mark.parametrize("op,dtypes", PARAMS)
def test_the_device_answers_as_pytorch_does(dev, op, dtypes):
    if (op, dtypes) in KNOWN_DIFFERENCES:
        pytest.skip(KNOWN_DIFFERENCES[(op, dtypes)])
    record = CASES[op]
    failures, ran = [], 0
    for case in record["cases"]:
        if case["dtypes"] != dtypes:
            continue
        out_like = out_dtype(op, record, case)
        expected = (elementwise_outcome(op, case) if op in ELEMENTWISE_REFERENCE else
                    outcome(op, contiguous_case(case) if op in CONTIGUOUS_REFERENCE else case, "cpu", out_like))
        if op in DELIBERATE and DELIBERATE[op][0] in str(expected):
            expected = outcome(DELIBERATE[op][1], case, "cpu", out_like)
        ran += not isinstance(expected, Exception)
        got = outcome(op, case, dev, out_like)
        if op in TIE_ORDER and not isinstance(expected, Exception) and not isinstance(got, Exception):
            why = difference(expected[:1], got[:1]) or indices_select_values(op, case, got)
        else:
            why = difference(expected, got)
        lazygen_torch.mark_step()
        if why and isinstance(got, Exception) and empty_inputs(case) and any(
                (op, text) in REFUSED_ON_EMPTY for text in REFUSED_ON_EMPTY_TEXTS if text in str(got)):
            continue
        if why:
            failures.append(f"{describe(case)}: {why}")
    assert not failures, f"{op} [{dtypes}]: {len(failures)} case(s) differ:\n" + "\n".join(failures)
    if dtypes == CASES[op]["primary"]:  # every op works on one dtype: cases PyTorch rejects test nothing
        assert ran > 0, f"{op}: PyTorch rejected every {dtypes} case"


# The in-place and out= forms the device derives from pointwise ops (Note [Derived forms for
# PyTorch] in generator/dest/torch_kernels.cpp), each run on its functional op's cases.
DERIVED = [name for name, origin, registered, _ in lazygen_torch.registration_report()
           if registered and origin == "derived form"]
INPLACE_FORMS = sorted(name for name in DERIVED if name.partition(".")[0].endswith("_"))
OUT_FORMS = sorted(name for name in DERIVED if name not in INPLACE_FORMS)


# (in-place form, case label) -> why the device differs there. Skipped.
INPLACE_DIFFERENCES = {
    ("threshold_", "expanded"): "PyTorch 1.13's threshold_ skips the memory-overlap check every other "
                                "in-place op makes; the device raises for an expanded self, as for "
                                "every in-place op",
}


def functional_of(form):
    base, dot, suffix = form.partition(".")
    return base[:-1] + dot + suffix


def test_in_place_forms_are_derived_for_the_activations_models_call():
    for form in ("hardtanh_", "silu_", "leaky_relu_", "elu_", "hardsigmoid_", "hardswish_", "exp_"):
        assert form in INPLACE_FORMS


@pytest.mark.parametrize("form", INPLACE_FORMS)
def test_in_place_forms_answer_as_pytorch_does(dev, form):
    """self written as PyTorch writes it, or both raise (a result dtype self cannot hold, a result
    larger than self, self expanded so that elements share memory)."""
    op = functional_of(form)
    if op in ELEMENTWISE_REFERENCE:
        pytest.skip(ELEMENTWISE_REFERENCE[op])
    failures, ran = [], 0
    for case in CASES[op]["cases"]:
        if (op, case["dtypes"]) in KNOWN_DIFFERENCES or (form, case["label"]) in INPLACE_DIFFERENCES:
            continue
        expected = outcome(form, case, "cpu", None)
        ran += not isinstance(expected, Exception)
        why = difference(expected, outcome(form, case, dev, None))
        lazygen_torch.mark_step()
        if why:
            failures.append(f"{describe(case)}: {why}")
    assert not failures, f"{form}: {len(failures)} case(s) differ:\n" + "\n".join(failures)
    assert ran > 0, f"{form}: PyTorch rejected every case"


def functional_of_out(form):
    """mul.out -> mul.Tensor (or mul), pow.Tensor_Scalar_out -> pow.Tensor_Scalar."""
    base, _, name = form.partition(".")
    if name == "out":
        return base if base in CASES else base + ".Tensor"
    return base + "." + name[:-len("_out")]


def out_outcome(form, op, case, device, dtype):
    """(result, out) on the CPU after the out= form wrote an empty `dtype` out, or the exception."""
    try:
        args, kwargs = arguments(op, case, device, None)
        out = torch.empty(0, dtype=dtype, device=device)
        result = overload(form)(*args, **kwargs, out=out)
    except Exception as e:  # noqa: BLE001  (any error counts as raising)
        return e
    return [result.cpu(), out.cpu()]


def test_out_forms_are_derived_for_the_ops_pytorch_calls_them_for():
    for form in ("maximum.out", "mul.out", "neg.out", "exp.out", "eq.Scalar_out"):
        assert form in OUT_FORMS


@pytest.mark.parametrize("form", OUT_FORMS)
def test_out_forms_answer_as_pytorch_does(dev, form):
    """out resized and written as PyTorch writes it (out of the functional result's dtype), or both
    raise."""
    op = functional_of_out(form)
    if op in ELEMENTWISE_REFERENCE:
        pytest.skip(ELEMENTWISE_REFERENCE[op])
    failures, ran = [], 0
    for case in CASES[op]["cases"]:
        if (op, case["dtypes"]) in KNOWN_DIFFERENCES:
            continue
        functional = outcome(op, case, "cpu", None)
        dtype = torch.float32 if isinstance(functional, Exception) else functional[0].dtype
        expected = out_outcome(form, op, case, "cpu", dtype)
        ran += not isinstance(expected, Exception)
        why = difference(expected, out_outcome(form, op, case, dev, dtype))
        lazygen_torch.mark_step()
        if why:
            failures.append(f"{describe(case)}: {why}")
    assert not failures, f"{form}: {len(failures)} case(s) differ:\n" + "\n".join(failures)
    assert ran > 0, f"{form}: PyTorch rejected every case"


def test_every_op_of_ops_yaml_is_registered_or_decomposed_by_pytorch():
    """No op silently missing: each is served, or PyTorch decomposes it, or it is not PyTorch's."""
    acceptable = ("PyTorch decomposes it", "not a PyTorch op")
    problems = [f"{name}: {reason}" for name, origin, registered, reason in
                lazygen_torch.registration_report()
                if not registered and not reason.startswith(acceptable)]
    assert not problems, "\n".join(problems)


# Values the consistency inputs avoid (their divisors are nonzero): PyTorch's integral division by
# zero and negative integral powers raise on the CPU; the device raises the same, at the call.
INTEGRAL_OPERAND_CASES = {
    "remainder by a zero tensor": lambda d: torch.remainder(torch.tensor([5, 3], device=d), torch.tensor([0, 2], device=d)),
    "fmod by a zero tensor": lambda d: torch.fmod(torch.tensor([5, 3], device=d, dtype=torch.int32), torch.tensor([2, 0], device=d, dtype=torch.int32)),
    "remainder by 0": lambda d: torch.remainder(torch.tensor([5], device=d), 0),
    "fmod by 0": lambda d: torch.fmod(torch.tensor([5], device=d), 0),
    "int ** -1": lambda d: torch.pow(torch.tensor([1, 2], device=d), -1),
    "bool ** -2": lambda d: torch.pow(torch.tensor([True], device=d), -2),
    "empty int ** -1": lambda d: torch.pow(torch.tensor([], device=d, dtype=torch.int64), -1),
    "empty remainder by 0": lambda d: torch.remainder(torch.tensor([], device=d, dtype=torch.int64), 0),
    "float fmod by 0": lambda d: torch.fmod(torch.tensor([5.0], device=d), torch.tensor([0.0], device=d)),
    "int ** tensor -1": lambda d: torch.pow(torch.tensor([2, 1, -1], device=d), torch.tensor([-1, -2, -3], device=d)),
    "int ** 2.5": lambda d: torch.pow(torch.tensor([4], device=d), 2.5),
}


@pytest.mark.parametrize("name", INTEGRAL_OPERAND_CASES)
def test_integral_division_by_zero_and_negative_powers_as_pytorch(dev, name):
    def run(device):
        try:
            return INTEGRAL_OPERAND_CASES[name](device).cpu()
        except RuntimeError as e:
            return e
    expected, got = run("cpu"), run(dev)
    if isinstance(expected, Exception):
        assert isinstance(got, Exception), f"PyTorch raises ({expected}); the device gives {got}"
        assert str(expected).split("\n")[0].strip() in str(got)
    else:
        assert not isinstance(got, Exception), got
        assert got.dtype == expected.dtype and torch.equal(got.isnan(), expected.isnan())
        assert torch.equal(got.nan_to_num(), expected.nan_to_num())


_I32_MIN, _I32_MAX, _I64_MAX = -2**31, 2**31 - 1, 2**63 - 1
# Integer results out of their dtype's range: PyTorch wraps them (two's complement) on every
# device, and so must the device's kernels, alone or fused into one graph (Note [Integer overflow
# wraps], cmake/LazygenKernels.cmake).
INTEGER_OVERFLOW_CASES = {
    "int32 min - 2": lambda d: torch.tensor([_I32_MIN, 5], dtype=torch.int32, device=d) - 2,
    "int32 max + 1": lambda d: torch.tensor([_I32_MAX], dtype=torch.int32, device=d) + 1,
    "int32 sub, alpha 3": lambda d: torch.sub(torch.tensor([_I32_MIN + 1], dtype=torch.int32, device=d),
                                              torch.tensor([_I32_MAX], dtype=torch.int32, device=d), alpha=3),
    "int32 products": lambda d: torch.tensor([65536, 46341, -65537], dtype=torch.int32, device=d) ** 2,
    "int32 times a tensor": lambda d: torch.tensor([65536, _I32_MAX], dtype=torch.int32, device=d)
                                      * torch.tensor([65536, 3], dtype=torch.int32, device=d),
    "int64 max + 1": lambda d: torch.tensor([_I64_MAX], device=d) + 1,
    "int64 product": lambda d: torch.tensor([2**62, -2**62 - 1], device=d) * 4,
    "int32 -min": lambda d: -torch.tensor([_I32_MIN], dtype=torch.int32, device=d),
    "int32 abs(min)": lambda d: torch.tensor([_I32_MIN, -3], dtype=torch.int32, device=d).abs(),
    "a fused int32 chain": lambda d: ((torch.tensor([_I32_MAX, _I32_MIN, 7], dtype=torch.int32, device=d) * 65537 + 11)
                                      - torch.tensor([_I32_MIN], dtype=torch.int32, device=d)).abs() * 3,
}


@pytest.mark.parametrize("name", INTEGER_OVERFLOW_CASES)
def test_integer_overflow_wraps_as_in_pytorch(dev, name):
    expected = INTEGER_OVERFLOW_CASES[name]("cpu")
    got = INTEGER_OVERFLOW_CASES[name](dev).cpu()
    assert got.dtype == expected.dtype
    assert torch.equal(got, expected), f"the device gives {got.tolist()}, PyTorch {expected.tolist()}"
