"""Wrong calls get one line naming what the caller wrote: an unknown or misspelled keyword, a
missing argument, an argument of the wrong kind, non-finite values (by argument, kind and index),
PyTorch's own refusals, a missing file."""
from pathlib import Path

import numpy as np
import pytest

import vkattn

MODEL = Path(__file__).resolve().parents[2] / "assets" / "models" / "tiny_llama" / "tiny-llama-q8_0.gguf"


def public_callables():
    """Every public function of the module, and every public method of its classes."""
    for name in dir(vkattn):
        value = getattr(vkattn, name)
        if name.startswith("_"):
            continue
        if isinstance(value, type):
            for attr in dir(value):
                member = getattr(value, attr)
                if not attr.startswith("_") and callable(member) and hasattr(member, "__wrapped__"):
                    yield f"{name}.{attr}", value, attr
        elif callable(value) and hasattr(value, "__wrapped__"):
            yield name, None, name


def one_line(error):
    text = str(error.value)
    assert "\n" not in text and len(text) < 500, text
    return text


def test_every_public_function_and_method_is_checked():
    names = [name for name, _, _ in public_callables()]
    for expected in ("scaled_dot_product_attention", "flash_attn_func", "softmax", "view", "Model.generate"):
        assert expected in names, names


def test_an_unknown_keyword_is_named_in_one_line_by_every_function():
    for name, cls, attr in public_callables():
        if cls is not None:  # the method of no object: the keyword is what is reported
            with pytest.raises(TypeError) as error:
                getattr(cls, attr)(None, zz_unknown=1)
        else:
            with pytest.raises(TypeError) as error:
                getattr(vkattn, attr)(zz_unknown=1)
        text = one_line(error)
        assert "zz_unknown" in text or "does not take" in text or "missing required" in text, (name, text)


def test_a_misspelled_keyword_suggests_the_parameter(rng):
    q = rng.standard_normal((1, 4, 2, 16)).astype(np.float32)
    with pytest.raises(TypeError) as error:
        vkattn.flash_attn_func(q, q, q, casual=True)
    assert one_line(error) == "flash_attn_func() got an unexpected keyword argument 'casual'; did you mean 'causal'?"
    with pytest.raises(TypeError, match="'dim'; its parameters are x, axis"):
        vkattn.softmax(q, dim=1)


def test_missing_and_wrongly_typed_arguments_are_named(rng):
    q = rng.standard_normal((1, 2, 4, 16)).astype(np.float32)
    with pytest.raises(TypeError) as error:
        vkattn.scaled_dot_product_attention(q, q)
    assert one_line(error) == "scaled_dot_product_attention() missing required argument 'value'"
    with pytest.raises(TypeError) as error:
        vkattn.scaled_dot_product_attention(q, q, q, is_causal="yes")
    assert one_line(error) == "scaled_dot_product_attention() argument 'is_causal' must be a bool, got str"
    with pytest.raises(TypeError, match=r"'window' must be a pair \(left, right\), got int"):
        vkattn.scaled_dot_product_attention(q, q, q, window=3)
    with pytest.raises(TypeError, match="'window_size' must be a pair"):
        vkattn.flash_attn_func(q, q, q, window_size=3)
    with pytest.raises(TypeError, match="'heads' must be a list"):
        vkattn.attention_weights(q, q, heads=1)


def test_dropout_p_is_pytorchs_and_only_zero_is_taken(rng):
    q, k, v = (rng.standard_normal((1, 2, 5, 16)).astype(np.float32) for _ in range(3))
    np.testing.assert_array_equal(vkattn.scaled_dot_product_attention(q, k, v, dropout_p=0.0),
                                  vkattn.scaled_dot_product_attention(q, k, v))
    with pytest.raises(ValueError, match="'dropout_p' must be 0"):
        vkattn.scaled_dot_product_attention(q, k, v, dropout_p=0.1)
    # PyTorch's positional order: dropout_p comes before is_causal.
    with pytest.raises(ValueError, match="'dropout_p'"):
        vkattn.scaled_dot_product_attention(q, k, v, None, 0.5)


@pytest.mark.parametrize("argument", ["query", "key", "value"])
@pytest.mark.parametrize("value, kind", [(np.nan, "NaN"), (np.inf, "+inf"), (-np.inf, "-inf")])
def test_non_finite_values_are_reported_where_they_are(rng, argument, value, kind):
    arrays = {name: rng.standard_normal((1, 2, 6, 16)).astype(np.float32) for name in ("query", "key", "value")}
    arrays[argument][0, 1, 4, 9] = value
    with pytest.raises(ValueError) as error:
        vkattn.scaled_dot_product_attention(**arrays)
    assert one_line(error) == f"'{argument}' holds {kind} at index (0, 1, 4, 9); its values must be finite"


def test_pytorchs_refusals(rng):
    q = rng.standard_normal((1, 2, 4, 16)).astype(np.float32)
    with pytest.raises(ValueError, match="'key' is float32 but 'query' is float16"):
        vkattn.scaled_dot_product_attention(q.astype(np.float16), q, q)
    with pytest.raises(ValueError, match="'attn_mask' and is_causal=True together"):
        vkattn.scaled_dot_product_attention(q, q, q, attn_mask=np.ones((4, 4), bool), is_causal=True)


def test_runtime_complaints_use_the_python_names(rng):
    q = rng.standard_normal((1, 2, 7, 16)).astype(np.float32)
    for mask in (np.ones((3, 7), bool), np.zeros((3, 7), np.float32)):
        with pytest.raises(ValueError) as error:
            vkattn.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        assert one_line(error).startswith("invalid argument 'attn_mask'"), str(error.value)


def test_a_missing_file_is_file_not_found(tmp_path):
    missing = tmp_path / "missing.gguf"
    for load in (vkattn.Model, vkattn.read_gguf):
        with pytest.raises(FileNotFoundError) as error:
            load(missing)
        assert error.value.filename == str(missing)


def test_a_prompt_that_is_not_text_or_ids_is_named():
    model = vkattn.Model(MODEL)
    with pytest.raises(TypeError) as error:
        model.generate(None)
    assert one_line(error) == "'prompt' must be a str or a sequence of token ids (ints), got NoneType"
    with pytest.raises(TypeError, match="'max_token'; did you mean 'max_tokens'"):
        model.generate("a", max_token=3)
    with pytest.raises(TypeError, match="'contxt'; did you mean 'context_length'"):
        vkattn.Model(MODEL, contxt=5)


@pytest.mark.parametrize("argument", ["q", "k", "v"])
def test_flash_attn_reports_non_finite_values_by_argument(rng, argument):
    arrays = {name: rng.standard_normal((1, 5, 2, 16)).astype(np.float32) for name in ("q", "k", "v")}
    arrays[argument][0, 3, 1, 2] = -np.inf
    with pytest.raises(ValueError) as error:
        vkattn.flash_attn_func(**arrays)
    assert one_line(error) == f"'{argument}' holds -inf at index (0, 3, 1, 2); its values must be finite"
    q = rng.standard_normal((1, 2, 4, 16)).astype(np.float32)
    bad = q.copy()
    bad[0, 0, 1, 1] = np.nan
    with pytest.raises(ValueError, match=r"^'key' holds NaN at index \(0, 0, 1, 1\)"):
        vkattn.attention_weights(q, bad)



@pytest.mark.parametrize("argument, value, kind", [("query", np.inf, "+inf"), ("key", np.inf, "+inf"),
                                                   ("key", np.nan, "NaN"), ("value", np.nan, "NaN")])
def test_non_finite_values_kept_on_the_device_are_found_after_the_kernel_reports(rng, argument, value, kind):
    arrays = {name: rng.standard_normal((1, 2, 5, 16)).astype(np.float32) for name in ("query", "key", "value")}
    arrays[argument][0, 1, 2, 3] = value
    on_device = {name: vkattn.asarray(a) for name, a in arrays.items()}
    with pytest.raises(ValueError) as error:
        vkattn.scaled_dot_product_attention(**on_device)
    assert one_line(error) == f"'{argument}' holds {kind} at index (0, 1, 2, 3); its values must be finite"


def test_flash_attn_takes_one_dtype_as_flash_attn_does(rng):
    q = rng.standard_normal((1, 4, 2, 16)).astype(np.float16)
    k = rng.standard_normal((1, 4, 2, 16)).astype(np.float32)
    with pytest.raises(ValueError, match="^'k' is float32 but 'q' is float16"):
        vkattn.flash_attn_func(q, k, q)
    with pytest.raises(ValueError, match="^'v' is float32 but 'q' is float16"):
        vkattn.flash_attn_varlen_func(q[0], q[0], k[0], np.array([0, 4], np.int32), np.array([0, 4], np.int32), 4, 4)


def parameters(function):
    """The parameter names pybind11 wrote into the function's signature line."""
    first = function.__doc__.splitlines()[0]
    inside = first[first.index("(") + 1:first.rindex(") ->")]
    return {part.split(":")[0].strip() for part in inside.split(", ") if ":" in part}


def test_refusals_name_a_parameter_of_the_function_called(rng):
    """Each refusal names the argument as the caller wrote it: the first quoted name in the message
    is one of the called function's own parameters (no runtime-internal name leaks through)."""
    import re
    q = rng.standard_normal((1, 2, 6, 16)).astype(np.float32)
    qf = rng.standard_normal((1, 6, 2, 16)).astype(np.float32)
    calls = [
        (vkattn.scaled_dot_product_attention, (q, q, q), dict(attn_mask=np.ones((3, 6), bool))),
        (vkattn.scaled_dot_product_attention, (q, q, q), dict(attn_mask=np.zeros((6, 5), np.float32))),
        (vkattn.scaled_dot_product_attention, (q, q[..., :8], q), {}),
        (vkattn.scaled_dot_product_attention, (q, q, q), dict(scale=float("nan"))),
        (vkattn.scaled_dot_product_attention, (q, q, q), dict(window=(-1, 2))),
        (vkattn.scaled_dot_product_attention, (q, q, q), dict(softcap="x")),
        (vkattn.scaled_dot_product_attention, (q, q, q), dict(alibi_slopes=np.ones(3, np.float32))),
        (vkattn.scaled_dot_product_attention, (q, q, q), dict(sinks=np.ones(5, np.float32))),
        (vkattn.scaled_dot_product_attention, (q, q[:, :1], q[:, :1]), {}),
        (vkattn.flash_attn_func, (qf, qf, qf[:, :3]), {}),
        (vkattn.flash_attn_func, (qf[0], qf, qf), {}),
        (vkattn.flash_attn_func, (qf, qf, qf), dict(softcap=-1.0)),
        (vkattn.attention_weights, (q, q), dict(heads=[5])),
        (vkattn.softmax, (q,), dict(axis=7)),
        (vkattn.argmax, (q,), dict(axis=-9)),
        (vkattn.layer_norm, (q,), dict(weight=np.ones(3, np.float32))),
        (vkattn.rms_norm, (q,), dict(eps=-1.0)),
    ]
    for function, args, kwargs in calls:
        with pytest.raises((TypeError, ValueError)) as error:
            function(*args, **kwargs)
        text = one_line(error)
        named = re.search(r"'([A-Za-z_]+)'", text)
        assert named, text
        assert named.group(1) in parameters(function), (function.__name__, text)
