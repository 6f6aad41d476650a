from filecheck import _Missing as Matcher  # noqa: F401
