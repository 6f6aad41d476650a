"""Numba's mangled names, short in messages.

numba mangles a function's qualified name with its ABI tags and argument
types into 100 to 300 characters (_ZN8__main__7add_i32B2v1B88cw51c...Eii);
a message says it as numba's demangler starts it (__main__::add_i32), with
the argument types where two names in one message would read the same, and
keeps the whole name in the exception's .symbol."""

import re

_MANGLED = re.compile(r"(?<![A-Za-z0-9_$.])_Z[A-Za-z0-9_]+")
_BUILTIN_TYPES = {"v": "void", "b": "bool", "c": "char", "a": "signed char",
                  "h": "unsigned char", "s": "short", "t": "unsigned short", "i": "int",
                  "j": "unsigned int", "l": "long", "m": "unsigned long", "x": "long long",
                  "y": "unsigned long long", "f": "float", "d": "double"}


def demangle(symbol):
    """(qualified name, argument types) of an Itanium name with an ABI tag
    (numba's always have one), or None for any other name."""
    s, i, parts, tagged = symbol, 2, [], False
    nested = s.startswith("N", i)
    i += nested
    while i < len(s):
        m = re.match(r"(B?)(\d+)", s[i:])
        if m:
            n, start = int(m.group(2)), i + m.end()
            if start + n > len(s):
                return None
            if m.group(1):
                tagged = True
            else:
                parts.append(s[start:start + n])
            i = start + n
        elif nested and s[i] == "E":
            i += 1
            break
        else:
            break
        if not nested and not s.startswith("B", i):
            break
    if not parts or not tagged:
        return None
    rest = s[i:]
    if all(c in _BUILTIN_TYPES for c in rest):
        args = ", ".join(_BUILTIN_TYPES[c] for c in rest if c != "v")
    else:
        args = "..."
    return "::".join(parts), "(%s)" % args


def shorten(message):
    """(message with its numba-mangled names short, the first such name whole)."""
    names = list(dict.fromkeys(m.group() for m in _MANGLED.finditer(message)))
    parsed = {n: d for n, d in ((n, demangle(n)) for n in names) if d}
    if not parsed:
        return message, None
    bases = [d[0] for d in parsed.values()]
    # names alike but for their arguments get those; names alike to the
    # end stay whole
    short = {n: d[0] if bases.count(d[0]) == 1 else d[0] + d[1] for n, d in parsed.items()}
    forms = list(short.values())
    short = {n: f for n, f in short.items() if forms.count(f) == 1}
    text = _MANGLED.sub(lambda m: short.get(m.group(), m.group()), message)
    return text, next(iter(parsed))
