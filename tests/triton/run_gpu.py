"""Triton's own kernels against cuplug's build of Triton's own LLVM IR, on
the GPU (tests/triton; needs Triton, torch and a GPU):

    python3 tests/triton/run_gpu.py [OUT.md]

For each kernel of kernels.py: Triton compiles and launches it; cuplug
compiles the LLIR Triton made (compiled.asm["llir"]) for cc 9.0a through
LLVM's NVPTX backend, with no signature (the IR marks the kernel
ptx_kernel), loads the cubin and launches it with the same arguments, its
two trailing scratch pointers NULL, num_warps * 32 threads and Triton's
dynamic shared memory.  The outputs must be equal bit for bit.  Kernel
times: Triton's own cubin (compiled.asm["cubin"]) and cuplug's, both
loaded and launched by cuplug, so that only the code differs; CUDA events
around 100 launches back to back, median of 7 rounds.  Exits 1 on any
difference."""
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import kernels  # noqa: E402
import cuplug  # noqa: E402

KERNEL, CUBIN = 1, 3


def arg_value(a):
    return a.data_ptr() if isinstance(a, torch.Tensor) else a


def kernel_ms(launch):
    for _ in range(10):
        launch()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(7):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(100):
            launch()
        end.record()
        end.synchronize()
        rounds.append(start.elapsed_time(end) / 100)
    return statistics.median(rounds)


def run_case(session, case):
    name, kernel, grid, make_args, constexprs, out_index = case
    torch.manual_seed(0)
    args = make_args()
    compiled = kernel[grid](*args, **constexprs)
    torch.cuda.synchronize()
    expected = args[out_index].clone()
    args[out_index].zero_()

    art = session.compile([(name + ".ll", compiled.asm["llir"])], compiled.metadata.name, None,
                          kind=KERNEL, output=CUBIN, cc=(9, 0, "a"))
    lib = session.load(art)
    k = lib.get_kernel(compiled.metadata.name)
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    block = (compiled.metadata.num_warps * 32, 1, 1)
    # Triton specialises an integer argument equal to 1 (the matmul's unit
    # strides) into a constant: its kernel has no parameter for it
    values = [arg_value(a) for a in args if not (isinstance(a, int) and a == 1)] + [0, 0]
    launch_cuplug = k[grid3, block, 0, compiled.metadata.shared]
    launch_cuplug(*values)
    torch.cuda.synchronize()
    same = torch.equal(args[out_index].view(torch.uint8), expected.view(torch.uint8))
    own = session.load(compiled.asm["cubin"]).get_kernel(compiled.metadata.name,
                                                         signature=k.signature)
    launch_triton = own[grid3, block, 0, compiled.metadata.shared]
    t_cuplug = kernel_ms(lambda: launch_cuplug(*values))
    t_triton = kernel_ms(lambda: launch_triton(*values))
    return name, same, t_triton, t_cuplug


def main(out_path=None):
    session = cuplug.Session()
    rows, ok = [], True
    for case in kernels.cases():
        name, same, t_triton, t_cuplug = run_case(session, case)
        ok &= same
        rows.append("| %s | %s | %.4f | %.4f | %.3f |" % (
            name, "bit for bit" if same else "DIFFERENT", t_triton, t_cuplug, t_cuplug / t_triton))
    table = "\n".join(["| kernel | result | Triton ms | cuplug ms | ratio |",
                       "|---|---|---|---|---|"] + rows)
    print(table)
    if out_path:
        with open(out_path, "w") as f:
            f.write(table + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
