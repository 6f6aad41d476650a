"""pip install ./host_shims/python (offline: --no-index --no-build-isolation).

Builds the extension cuplug._cuplug on CPython's limited API (one wheel for
Python 3.11 and later), and puts the plugin (libcuplug.so), its helper
process (cuplug-helper) and the library that runs device code on the CPU
(libcuplug-host.so, opened on the first output="host" load) and LLVM's NVPTX
backend (libcuplug-nvptx.so) in the package beside it.  Those come from the
CMake build in $CUPLUG_BUILD_DIR when set (a relative folder from where pip
runs, or from the repository's root), else from a build this runs
(build-python/ at the repository's root)."""
import os
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# the extension's C files, one per type (src/shim.h says which uses which);
# CMakeLists.txt lists them too
SOURCES = ["module.c", "session.c", "memory.c", "library.c", "kernel.c", "arrays.c", "values.c",
           "registry.c", "callbacks.c", "artifact.c", "views.c", "type.c", "errors.c",
           "interrupt.c", "structs.c"]


def given_build(given):
    """$CUPLUG_BUILD_DIR as a folder.  pip runs this file in its own folder,
    so a relative one is taken from where pip was run (the shell's $PWD),
    else from the repository's root: CUPLUG_BUILD_DIR=build works there."""
    if os.path.isabs(given):
        return given
    bases = [b for b in (os.environ.get("PWD"), ROOT) if b]
    for base in bases:
        path = os.path.normpath(os.path.join(base, given))
        if os.path.isfile(os.path.join(path, "lib", "libcuplug.so")):
            return path
    raise SystemExit("cuplug: CUPLUG_BUILD_DIR=%s: no lib/libcuplug.so in %s (give the CMake "
                     "build folder)" % (given, " or ".join(os.path.join(b, given) for b in bases)))


def plugin_build():
    given = os.environ.get("CUPLUG_BUILD_DIR")
    if given:
        return given_build(given)
    out = os.path.join(ROOT, "build-python")
    subprocess.check_call(["cmake", "-S", ROOT, "-B", out, "-DCMAKE_BUILD_TYPE=Release",
                           "-DCUPLUG_TESTS=OFF"])
    subprocess.check_call(["cmake", "--build", out, "-j", str(os.cpu_count() or 2),
                           "--target", "cuplug", "cuplug_helper", "cuplug_host", "cuplug_nvptx"])
    return out


class BuildWithPlugin(build_ext):
    def run(self):
        super().run()
        build = plugin_build()
        target = os.path.join(self.build_lib, "cuplug")
        os.makedirs(target, exist_ok=True)
        for name in ("libcuplug.so", "cuplug-helper", "libcuplug-host.so",
                     "libcuplug-nvptx.so"):
            src = os.path.join(build, "lib", name)
            if not os.path.exists(src):
                raise SystemExit("cuplug: %s is missing: build the plugin first" % src)
            shutil.copy2(src, os.path.join(target, name))


setup(
    name="cuplug",
    version="1.3.0",
    description="numba-cuda's CUDA compile backend as a plugin with a stable C ABI",
    packages=["cuplug"],
    package_data={"cuplug": ["__init__.pyi", "py.typed"]},
    python_requires=">=3.11",
    ext_modules=[Extension(
        "cuplug._cuplug",
        sources=["src/" + f for f in SOURCES],
        include_dirs=[os.path.join(ROOT, "abi", "include"), "src"],
        define_macros=[("Py_LIMITED_API", "0x030B0000")],
        libraries=["dl"],
        py_limited_api=True,
    )],
    cmdclass={"build_ext": BuildWithPlugin},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
    zip_safe=False,
)
