"""Stand-in for cffi, absent on the GPU machine: some numba-cuda test modules
import it and make an FFI() at import time.  Every FFI method raises
TypeError, which numba-cuda's cffi support takes as "not a cffi object"
(cffi_utils.is_cffi_func); tests that need real cffi fail the same way in the
stock run and the cuplug run, and compare.py shows no difference for them."""


class FFI:
    def __getattr__(self, name):
        def missing(*args, **kwargs):
            raise TypeError("cffi is not installed (tests/numba_cuda/stubs stand-in): "
                            "FFI.%s" % name)
        return missing
