"""Flux's post-build substitution of one object, ported step by step:

- kustomize-controller v1.9.0 internal/controller/kustomization_controller.go (build): for a
  Kustomization with spec.postBuild, every object of the build goes through
  SubstituteVariables, strict unless the feature gate StrictPostBuildSubstitutions is off (on
  by default from v1.9: internal/features/features.go; v1.8 had it off);
- fluxcd/pkg kustomize v1.35.0 kustomize_varsub.go SubstituteVariables: an object whose label
  or annotation kustomize.toolkit.fluxcd.io/substitute is "disabled" is skipped (returned nil,
  left as built); without variables (and without substitution strategy Always) nothing runs;
  else the object's YAML goes through envsubst.Eval, whose mapping, in strict mode, says a
  variable the Kustomization does not set is unset;
- fluxcd/pkg envsubst v1.7.0 parse/scan.go and parse/parse.go (parseAny, parseFunc,
  parseLenFunc, parseDefaultFunc), template.go (evalFunc, isDefaultOp) and funcs.go
  (toDefault, toLen): `$$` is one `$` (scanEscaped: the first dollar is dropped); `${` opens
  an expression: `#` and a name (its length), or a name of letters, digits and `_`, then `}`,
  or `:` / `=` and a default-taking operator; anything else fails the parse
  (ErrMissingClosingBrace, ErrParseVariableName, ErrBadSubstitution). The expressions mpigen
  could meet beyond these (casing, substrings, pattern replacement) raise NotPorted, so a test
  never passes on a branch this port does not follow.

The object's YAML is mpigen's own emitter's (kustomize serialises it with kyaml: other quoting,
the same characters inside each string, where `$` is never escaped).
"""

from __future__ import annotations

import yaml

from mpigen.emit.yaml import dump_object

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SUBSTITUTE_KEY = "kustomize.toolkit.fluxcd.io/substitute"
DEFAULT_OPS = ("-", "+", "=", "?", ":-", ":+", ":=", ":?")  # template.go isDefaultOp


class SubstitutionFailed(Exception):
    """The Kustomization's build fails: "post build failed for '<gvk>/<name>': envsubst error"."""


class NotPorted(Exception):
    """An expression this port does not follow."""


def _ident(text: str, i: int) -> int:
    """The end of the name starting at i (acceptIdent: letters, digits, `_`)."""
    while i < len(text) and (text[i].isalnum() or text[i] == "_"):
        i += 1
    return i


def _expression(text: str, i: int, lookup) -> tuple[str, int]:
    """The value of the expression after `${` at i, and where the text goes on (parseFunc; evalFunc
    evaluates the arguments first, then fails a variable strict mode says is unset unless the
    operator supplies a default)."""
    if text.startswith("#", i):  # parseLenFunc
        end = _ident(text, i + 1)
        if end == i + 1 or not text.startswith("}", end):
            raise SubstitutionFailed("bad substitution")
        value, exists = lookup(text[i + 1:end])
        if not exists:
            raise SubstitutionFailed(f"variable not set (strict mode): {text[i + 1:end]!r}")
        return str(len(value)), end + 1
    end = _ident(text, i)
    if end == i:
        raise SubstitutionFailed("unable to parse variable name")
    name, op = text[i:end], ""
    if text.startswith(("#", "%"), end):  # parseRemoveFunc: #, ##, %, %%
        op = text[end:end + 2] if text[end + 1:end + 2] == text[end] else text[end]
    elif text[end:end + 2] in (":-", ":=", ":?", ":+") or text.startswith("=", end):  # parseDefaultFunc
        op = "=" if text.startswith("=", end) else text[end:end + 2]
    elif text[end:end + 1] in (":", ",", "^", "/"):
        raise NotPorted(f"${{{name}{text[end]}...}}")
    elif not text.startswith("}", end):
        raise SubstitutionFailed("missing closing brace")
    args, rest = _arguments(text, end + len(op), lookup) if op else ([], end + 1)
    value, exists = lookup(name)
    if not exists and op not in DEFAULT_OPS:
        raise SubstitutionFailed(f"variable not set (strict mode): {name!r}")
    if op in DEFAULT_OPS or not op:
        return (value or "".join(args)), rest  # toDefault
    if value:
        raise NotPorted(f"the pattern of ${{{name}{op}...}}")
    return "", rest  # trimming an empty value leaves it empty


def _arguments(text: str, i: int, lookup) -> tuple[list[str], int]:
    """An operator's argument up to its `}`, nested expressions evaluated (parseParam, with every
    escape on: `$$` a dollar, a backslash before `/` or `\\` dropped), and where the text goes on."""
    out = []
    while i < len(text):
        if text.startswith("}", i):
            return ["".join(out)], i + 1
        if text.startswith("${", i):
            value, i = _expression(text, i + 2, lookup)
            out.append(value)
        elif text.startswith("$$", i) or (text[i] == "\\" and text[i + 1:i + 2] in ("/", "\\")):
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    raise SubstitutionFailed("missing closing brace")


def substitute(text: str, lookup) -> str:
    """envsubst.Eval(text, mapping): `lookup(name)` -> (value, exists)."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
        elif text.startswith("${", i):
            value, i = _expression(text, i + 2, lookup)
            out.append(value)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def post_build(obj: dict, variables: dict[str, str], strict: bool = True, always: bool = False) -> dict:
    """The object as a Kustomization with postBuild applies it (SubstituteVariables); raises
    SubstitutionFailed where the Kustomization's build fails."""
    meta = obj.get("metadata", {})
    if "disabled" in (meta.get("labels", {}).get(SUBSTITUTE_KEY), meta.get("annotations", {}).get(SUBSTITUTE_KEY)):
        return obj
    if not variables and not always:
        return obj

    def lookup(name: str) -> tuple[str, bool]:
        if strict:
            return variables.get(name, ""), name in variables
        return variables.get(name, ""), True

    text = dump_object(obj)
    substituted = substitute(text, lookup)
    return obj if substituted == text else yaml.load(substituted, Loader=LOADER)
