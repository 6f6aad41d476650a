from filecheck import _Missing as Parser, pattern_for_opts  # noqa: F401
