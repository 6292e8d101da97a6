#!/usr/bin/python3
"""Writes generator/model/pytorch_dtypes.inc: the dtypes PyTorch's CPU kernels take, per op.

lazygen instantiates an op's generated kernels, and its op API accepts, only the dtypes the op
computes in (ops.yaml `dtypes:`); an op without that key gets PyTorch's list from this table
(See Note [Kernel dtypes] in generator/model/kernel_dtypes.h). The table is measured, not typed:
every aten schema whose arguments this script can make up is called on CPU tensors of each of
lazygen's five dtypes, and a dtype counts as refused only when the call fails with PyTorch's
dispatch error naming it ("... not implemented for 'Bool'") while another dtype succeeds. Ops that
take all five, or that no dtype can run with made-up arguments, are left out (default: all).

Usage: scripts/pytorch_dtypes.py [--check]   (Debian's /usr/bin/python3 with python3-torch)
  --check  compare with the checked-in table instead of writing it; exit 1 on a difference
"""
import argparse
import os
import sys
import warnings

import torch

OUTPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "generator", "model",
                      "pytorch_dtypes.inc")

# lazygen's dtype names, PyTorch's dtypes and the names PyTorch's dispatch errors use.
DTYPES = [("bool", torch.bool, "Bool"), ("int32", torch.int32, "Int"), ("int64", torch.int64, "Long"),
          ("float32", torch.float32, "Float"), ("float64", torch.float64, "Double")]

# Schemas not to call with made-up arguments: other backends, quantization, sparse layouts,
# randomness with side effects on global state, ops that may abort the process or read made-up
# arguments out of bounds.
SKIPPED_PREFIXES = ("_cudnn", "cudnn", "miopen", "mkldnn", "_mkldnn", "_nnpack", "quantize", "q_",
                    "_fake_quant", "fake_quant", "_fbgemm", "fbgemm", "_sparse", "sparse", "to_sparse",
                    "_to_sparse", "_coalesce", "_foreach", "_fused", "_thnn", "_test", "_sobol", "_cufft",
                    "_nested", "nested", "_use_cudnn", "_make_", "set_", "resize", "_resize", "record_stream",
                    "_assert", "_local_scalar", "item", "_amp", "_pin", "pin_", "is_pinned", "_version",
                    "retain", "requires_grad", "_backward", "backward", "_cummax", "_cummin",
                    "segment_reduce", "_segment", "_histogramdd", "_linalg", "linalg", "_lu", "lu",
                    "_validate", "_efficientzerotensor", "_conj", "_neg_view", "_indices", "_values",
                    "indices", "values", "crow", "col_", "row_", "ccol", "_dimI", "_dimV", "_nnz",
                    "dense_dim", "sparse_dim", "is_coalesced", "_to_cpu", "_autocast", "_has_",
                    "_new_zeros_with_same_feature_meta", "_transformer", "_native_multi_head",
                    "_triton", "_flash", "_scaled_dot", "_masked", "_chunk_grad", "_functional",
                    "split_copy", "unbind_copy", "lift", "_unsafe", "_reshape_from_tensor",
                    "_shape_as_tensor", "_pack", "_pad_packed", "_cast", "_standard_gamma",
                    "_sample_dirichlet", "_dirichlet", "poisson", "binomial", "_fw_primal",
                    "_make_dual", "_unpack_dual", "_remove_batch_dim", "_add_batch_dim", "align",
                    "refine_names", "rename", "_stack", "_cat", "sym_", "_nested", "_weight_norm",
                    "_ctc", "ctc", "_embedding_bag", "embedding_bag", "_fft", "fft", "stft", "istft",
                    "_nnz", "_sparse", "normal", "uniform", "random", "bernoulli", "multinomial",
                    "gru_cell", "lstm_cell", "rnn_tanh_cell", "rnn_relu_cell", "exponential", "geometric",
                    "cauchy", "log_normal", "rand", "_s_", "native_channel",
                    # a one-element padding list is read past its end (undefined behaviour)
                    "reflection_pad", "replication_pad")
SKIPPED_OVERLOADS = ("out", "names", "Dimname", "dimname", "generator")


def probe_value(arg, dtype):
    """An argument for `arg` at `dtype`, or raise LookupError when this script cannot make one."""
    t = str(arg.type)
    if t == "Tensor":
        return torch.tensor([[1, 2, 3], [4, 5, 6]]).to(dtype)
    if arg.has_default_value():
        return arg.default_value
    if t.startswith("Optional["):
        return None
    made_up = {"number": 1, "int": 1, "float": 0.5, "bool": False, "List[int]": [1]}
    if t in made_up:
        return made_up[t]
    raise LookupError(t)


def probe_schemas():
    crashed = tuple(os.environ.get("LAZYGEN_PROBE_SKIP", "").split())
    for schema in torch._C._jit_get_all_schemas():
        if not schema.name.startswith("aten::"):
            continue
        name = schema.name[len("aten::"):]
        overload = schema.overload_name
        if name.startswith(SKIPPED_PREFIXES) or name in crashed or any(s in overload for s in SKIPPED_OVERLOADS):
            continue
        if len(schema.returns) != 1 or str(schema.returns[0].type) != "Tensor":
            continue
        if not any(str(a.type) == "Tensor" for a in schema.arguments):
            continue
        yield name, overload, schema


def call(name, overload, schema, dtype):
    """None when the call succeeds, else its error message."""
    packet = getattr(torch.ops.aten, name)
    op = getattr(packet, overload or "default")
    args, kwargs = [], {}
    for a in schema.arguments:
        v = probe_value(a, dtype)
        if a.kwarg_only:
            if not a.has_default_value():
                kwargs[a.name] = v
        else:
            args.append(v)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            op(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 -- PyTorch raises many types; the message decides
        return str(e) or type(e).__name__
    return None


def measure(verbose):
    """{schema name: [accepted lazygen dtypes]} for ops that refuse some but not all."""
    table = {}
    for name, overload, schema in probe_schemas():
        key = name + ("." + overload if overload else "")
        if verbose:
            print(key, file=sys.stderr, flush=True)
        try:
            errors = {lz: call(name, overload, schema, dt) for lz, dt, _ in DTYPES}
        except LookupError:
            continue
        refused = {lz for lz, _, torch_name in DTYPES
                   if errors[lz] is not None and "not implemented for '" + torch_name + "'" in errors[lz]}
        accepted = [lz for lz, _, _ in DTYPES if errors[lz] is None]
        if refused and accepted:
            table[key] = [lz for lz, _, _ in DTYPES if lz not in refused]
    return table


def render(table):
    lines = ["// Written by scripts/pytorch_dtypes.py from PyTorch " + torch.__version__.split("a")[0] +
             "'s CPU kernels; do not edit.",
             "// LAZYGEN_PYTORCH_DTYPES(schema name, \"dtype dtype ...\"): the dtypes the op takes, for ops",
             "// that refuse some of lazygen's five (See Note [Kernel dtypes] in kernel_dtypes.h)."]
    for key in sorted(table):
        lines.append('LAZYGEN_PYTORCH_DTYPES("%s", "%s")' % (key, " ".join(table[key])))
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="name each schema before calling it")
    args = parser.parse_args()
    torch.manual_seed(0)
    text = render(measure(args.verbose))
    if args.check:
        with open(OUTPUT) as f:
            if f.read() != text:
                print("generator/model/pytorch_dtypes.inc is out of date: run scripts/pytorch_dtypes.py",
                      file=sys.stderr)
                return 1
        return 0
    with open(OUTPUT, "w") as f:
        f.write(text)
    print("wrote", os.path.relpath(OUTPUT), "(%d ops)" % text.count("LAZYGEN_PYTORCH_DTYPES(\""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
