// Calls that pybind11 cannot match get one line naming what is wrong, in Python's words, instead
// of pybind11's "incompatible function arguments" with every argument (arrays included) printed:
// an unknown keyword is named with the closest parameter, a missing or surplus argument is
// counted, and an argument of the wrong kind (bool, int, float, str) is named with what it got.
// Each public function and method of the module is wrapped once, at import; the parameter names
// and kinds are read from the signature pybind11 writes at the head of each docstring.
#include "keyword_check.hpp"

#include <pybind11/eval.h>

namespace vkattn::python {
namespace {

constexpr const char* kWrapper = R"PY(
import difflib, functools, re

_KINDS = {"bool": "a bool", "int": "an int", "float": "a number", "str": "a str"}


def _split_top(text):
    """Splits a parameter list at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:].strip())
    return parts


def _signatures(name, doc):
    """Each overload's parameters as (name, type, has_default, positional), from pybind11's docstring."""
    found = []
    for line in (doc or "").splitlines():
        m = re.match(r"^(?:\d+\. )?" + re.escape(name) + r"\((.*)\) -> ", line)
        if not m:
            continue
        params, positional = [], True
        for part in _split_top(m.group(1)):
            if part == "*":
                positional = False  # the parameters after it are keyword-only
                continue
            if part.startswith("*"):
                return None  # takes any arguments: nothing to check
            pname, _, rest = part.partition(":")
            ptype, _, default = rest.partition("=")
            params.append((pname.strip(), ptype.strip(), bool(default.strip()), positional))
        if params and params[0][0] == "self":
            params = params[1:]
        found.append(params)
    return found or None


def _kind_ok(ptype, value):
    import numpy
    if ptype == "bool":
        return isinstance(value, (bool, numpy.bool_))
    if ptype == "int":
        return not isinstance(value, (bool, float)) and hasattr(value, "__index__")
    if ptype == "float":
        return not isinstance(value, (str, bytes)) and hasattr(value, "__float__")
    if ptype == "str":
        return isinstance(value, str)
    return True


def _problem(name, params, args, kwargs):
    """What is wrong with a call against one overload's parameters, or None if nothing is seen."""
    names = [p[0] for p in params]
    positional = sum(1 for p in params if p[3])
    if len(args) > positional:
        return f"{name}() takes at most {positional} positional arguments ({len(args)} given)"
    for key in names[: len(args)]:
        if key in kwargs:
            return f"{name}() got multiple values for argument '{key}'"
    given = dict(zip(names, args), **kwargs)
    for key in kwargs:
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; its parameters are {', '.join(names)}"
            return f"{name}() got an unexpected keyword argument '{key}'{hint}"
    for pname, _, has_default, _ in params:
        if pname not in given and not has_default:
            return f"{name}() missing required argument '{pname}'"
    for pname, ptype, _, _ in params:
        if pname in given and ptype in _KINDS and not _kind_ok(ptype, given[pname]):
            return f"{name}() argument '{pname}' must be {_KINDS[ptype]}, got {type(given[pname]).__name__}"
    return None


def _guard(name, function, overloads, method):
    """`function` as it was, but a call it refuses raises one line saying why."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            text = str(error)
            if "incompatible function arguments" not in text and "incompatible constructor arguments" not in text:
                raise
            plain = args[1:] if method else args  # a method's first argument is the object itself
            problems = [_problem(name, params, plain, kwargs) for params in overloads]
            if all(problems):
                raise TypeError(problems[0]) from None
            kinds = ", ".join(type(a).__name__ for a in plain)
            raise TypeError(f"{name}() does not take these arguments: positional ({kinds}), keywords "
                            f"({', '.join(kwargs) or 'none'})") from None

    return call


def wrap_module(module):
    builtin = type(len)
    for attr in list(vars(module)):
        value = getattr(module, attr)
        if attr.startswith("_"):
            continue
        if isinstance(value, builtin):
            overloads = _signatures(attr, value.__doc__)
            if overloads:
                setattr(module, attr, _guard(attr, value, overloads, method=False))
        elif isinstance(value, type) and value.__module__ == module.__name__:
            for name, member in list(vars(value).items()):
                if (name != "__init__" and name.startswith("_")) or type(member).__name__ != "instancemethod":
                    continue
                overloads = _signatures(name, member.__doc__)
                if overloads:
                    shown = value.__name__ if name == "__init__" else f"{value.__name__}.{name}"
                    setattr(value, name, _guard(shown, member, overloads, method=True))
)PY";

}  // namespace

void checkKeywords(py::module_& m) {
  py::dict scope;
  py::exec(kWrapper, scope);
  scope["wrap_module"](m);
}

}  // namespace vkattn::python
