"""numba-cuda's types as cuplug's type language: the mapping install(),
compile() and jit() use to hand numba-cuda's functions to cuplug.  It is
also the worked example of a host's mapping (README: "Types of a host").

The rule is numba-cuda's data model: a numba type maps to the cuplug type
that travels through a call the same way (numba.cuda.datamodel).  Types of
their own kind map by name (arrays, records, tuples, pointers, literals);
the rest by their model: an opaque pointer (functions, dispatchers,
modules, typerefs, dtypes: a value known only while compiling) is
Opaque("numba's name"), an omitted argument Omitted("..."), an enum member
its value's type, a struct model (Optional, Interval, a host's own
StructModel) the Struct of its members, an integer model (datetime64,
GridGroup) the integer of its width."""

import re as _re
from collections import Counter as _Counter

import cuplug as _cuplug

# numba types cuplug had no model of, as "Class: text" -> how often (stats())
unmapped: "_Counter[str]" = _Counter()

_SCALARS = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float16", "float32", "float64", "complex64", "complex128"}


class _Unmapped(NotImplementedError):
    pass


def _quote(text):
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"')


def _field_name(name):
    """A field's name as cuplug reads it: an ASCII identifier bare, any
    other name quoted."""
    return name if name.isascii() and name.isidentifier() else _quote(name)


def _model_of(t):
    """numba-cuda's data model of t, and the names of its model's classes
    (numba-cuda's models are numba's own where numba is installed: by name,
    either one is told apart)."""
    from numba.cuda.descriptor import cuda_target
    model = cuda_target.target_context.data_model_manager.lookup(t)
    return model, {c.__name__ for c in type(model).__mro__}


def _field(t):
    """A record field's type: nested arrays as UniTuples, row-major."""
    from numba.cuda import types
    if isinstance(t, types.NestedArray):
        name = _name(t.dtype, field=True)
        for n in reversed(t.shape):
            name = "UniTuple(%s x %d)" % (name, n)
        return name
    return _name(t, field=True)


def _record(t):
    fields = ", ".join("%s: %s @ %d" % (_field_name(k), _field(f.type),
                                        f.offset)
                       for k, f in sorted(t.fields.items(), key=lambda kv: kv[1].offset))
    return "Record(%s%ssize=%d%s)" % (fields, ", " if fields else "", t.size,
                                      "" if t.aligned else ", align=1")


def _struct(model, member):
    """A StructModel: numba-cuda's literal struct of its members (never an
    array, even when they are alike), flattened as an argument."""
    return "Struct(%s)" % ", ".join(
        "%s: %s" % (_field_name(f), member(e))
        for f, e in zip(model._fields, model._members))


def _by_model(t, position):
    """A type cuplug knows by its data model alone."""
    model, kinds = _model_of(t)
    if "OmittedArgDataModel" in kinds:
        return "Omitted(%s)" % _quote(t)
    if "OpaqueModel" in kinds:
        return "Opaque(%s)" % _quote(t)
    if "ProxyModel" in kinds:
        return _name(model._proxied_model._fe_type, position)
    if "StructModel" in kinds and model._members:
        return _struct(model, lambda e: _name(e))
    if "PrimitiveModel" in kinds:
        be = model.get_value_type()
        if getattr(be, "width", None) in (8, 16, 32, 64) and str(be).startswith("i"):
            return "int%d" % be.width
    raise _Unmapped(t)


def _name(t, position="argument", field=False):
    from numba.cuda import types
    from numba.cuda.types.ext_types import Bfloat16
    name = str(t)
    if name in _SCALARS:
        return name
    if isinstance(t, types.NoneType) and position == "return":
        return "void"
    if isinstance(t, Bfloat16):
        return "bfloat16"
    if isinstance(t, types.Array):
        text = "array(%s, %dd, %s)" % (_name(t.dtype, field=True), t.ndim, t.layout)
        return text if t.mutable else "readonly " + text
    if isinstance(t, types.Record):
        return _record(t)
    if isinstance(t, (types.NPDatetime, types.NPTimedelta)):
        return "int64"  # numba-cuda's model: the count of units, an i64
    if isinstance(t, types.CharSeq):  # data: [N x i8]
        return "UniTuple(uint8 x %d)" % t.count
    if isinstance(t, types.UnicodeCharSeq):  # data: [N x i32], UCS-4
        return "UniTuple(uint32 x %d)" % t.count
    if field:  # an array's dtype: a struct model is the tuple of its members
        model, kinds = _model_of(t)
        if "StructModel" in kinds and model._members:
            return _struct(model, lambda e: _name(e, field=True))
        raise _Unmapped(t)
    if isinstance(t, types.BooleanLiteral):
        return "bool"
    if isinstance(t, types.IntegerLiteral):
        return "Literal[int](%d)" % t.literal_value
    if isinstance(t, types.RawPointer) or isinstance(t, types.MemInfoPointer):
        return "CPointer(void)"
    if isinstance(t, types.CPointer):
        return "CPointer(%s)" % _name(t.dtype)
    if isinstance(t, types.ExternalFunctionPointer):
        return "CPointer(%s)" % _signature(t.sig)
    if isinstance(t, types.UniTuple):  # also NamedUniTuple, StarArgUniTuple
        return "UniTuple(%s x %d)" % (_name(t.dtype), t.count)
    if isinstance(t, types.BaseTuple):  # Tuple, NamedTuple, StarArgTuple
        return "Tuple(%s)" % ", ".join(_name(e) for e in t.types)
    return _by_model(t, position)


def _signature(sig):
    return "%s(%s)" % (_name(sig.return_type, "return"),
                       ", ".join(_name(a) for a in sig.args))


def type_name(t, position="argument"):
    """A numba type as cuplug writes it (array(float32, 1d, C) as itself,
    which cuplug reads as float32[::1]); NotImplementedError for a type
    cuplug has no model of."""
    try:
        return _name(t, position)
    except _Unmapped:
        raise NotImplementedError("cuplug.numba (signature): cuplug has no model of the "
                                  "numba type %s" % t) from None


def signature_of(cres):
    """The cuplug signature of a compile result (NotImplementedError, naming
    the type, where cuplug has no model of one)."""
    sig = cres.signature
    for t, position in [(sig.return_type, "return")] + [(a, "argument") for a in sig.args]:
        try:
            _cuplug.typeof(_name(t, position))
        except (_Unmapped, _cuplug.CuplugError):  # no model, or past a limit of cuplug's
            unmapped["%s: %s" % (type(t).__name__, t)] += 1
            raise NotImplementedError("cuplug.numba (signature): cuplug has no model of the "
                                      "numba type %s" % t) from None
    text = _signature(sig)
    try:
        _cuplug.typeof(text)
    except _cuplug.CuplugError as e:  # each type fits, the whole does not (too many parameters)
        unmapped["signature: %s" % e] += 1
        raise NotImplementedError("cuplug.numba (signature): cuplug cannot take the signature "
                                  "%s: %s" % (text, e)) from None
    return text


def kind_of(type_text):
    """A type's kind for stats(): "Record" for "array(Record(a[...]), 1d, C)"."""
    m = _re.match(r"(?:readonly |unaligned )*(?:array\()?([A-Za-z_][\w *]*)", type_text)
    return m.group(1).strip() if m else type_text
