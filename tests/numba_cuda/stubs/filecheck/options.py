from filecheck import _Missing as Options  # noqa: F401
