"""numba-cuda's types as cuplug's type language: the mapping install(),
compile() and jit() use to hand numba-cuda's functions to cuplug.  It is
also the worked example of a host's mapping (README: "Types of a host")."""

import re as _re

import cuplug as _cuplug

_SCALARS = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float16", "float32", "float64", "complex64", "complex128", "none", "void"}


def type_name(t):
    """A numba type as cuplug writes it ("array(float32, 1d, C)" parses as
    float32[::1], "readonly array(...)" as itself: launch passes read-only
    memory to it alone); NotImplementedError for types cuplug has no model of."""
    name = str(t)
    base = _re.sub(r"[\[(].*", "", name)
    if base == "readonly array":
        return name
    if name.endswith("*") and hasattr(t, "dtype"):  # numba writes CPointer(T) as "T*"
        return "CPointer(%s)" % type_name(t.dtype)
    if name in _SCALARS or base in ("array", "CPointer", "UniTuple", "Tuple", "Literal",
                                    "class"):
        return "void" if name == "none" else name
    raise NotImplementedError("cuplug.numba (signature): cuplug has no model of the numba type %s"
                              % name)


def signature_of(cres):
    """The cuplug signature of a compile result (NotImplementedError, naming
    the type, where cuplug has no model of one)."""
    sig = cres.signature
    for t in (sig.return_type,) + tuple(sig.args):
        try:
            _cuplug.typeof(type_name(t))
        except _cuplug.TypeSyntaxError:  # array(Record(...)), say
            raise NotImplementedError("cuplug.numba (signature): cuplug has no model of the "
                                      "numba type %s" % t) from None
    return "%s(%s)" % (type_name(sig.return_type), ", ".join(type_name(a) for a in sig.args))


def kind_of(type_text):
    """A type's kind for stats(): "Record" for "array(Record(a[...]), 1d, C)"."""
    m = _re.match(r"(?:readonly |unaligned )*(?:array\()?([A-Za-z_][\w *]*)", type_text)
    return m.group(1).strip() if m else type_text
