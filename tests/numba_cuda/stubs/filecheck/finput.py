from filecheck import _Missing as FInput  # noqa: F401
