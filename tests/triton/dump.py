"""Writes Triton's own LLVM IR of each kernel of kernels.py, with what a
launch needs, to the folder given (run where Triton and a GPU are):
    python3 tests/triton/dump.py OUT
NAME.ll is compiled.asm["llir"]; NAME.json holds the kernel's symbol,
num_warps, the dynamic shared memory and Triton's PTX target line."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import kernels  # noqa: E402


def main(out):
    os.makedirs(out, exist_ok=True)
    for name, kernel, grid, make_args, constexprs, _ in kernels.cases():
        compiled = kernel[grid](*make_args(), **constexprs)
        with open(os.path.join(out, name + ".ll"), "w") as f:
            f.write(compiled.asm["llir"])
        ptx = compiled.asm["ptx"]
        meta = {"symbol": compiled.metadata.name, "num_warps": compiled.metadata.num_warps,
                "shared": compiled.metadata.shared, "grid": list(grid),
                "target": next(l for l in ptx.splitlines() if l.startswith(".target")),
                "version": next(l for l in ptx.splitlines() if l.startswith(".version"))}
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(meta, f, indent=1)
        print(name, meta)


if __name__ == "__main__":
    main(sys.argv[1])
