"""Four Triton 3.6 kernels whose own LLVM IR cuplug compiles (tests/triton).

Each case names its kernel, how to make its inputs and how Triton launches
it; dump.py writes Triton's LLIR of each to fixtures/, and run_gpu.py
launches both Triton's kernel and cuplug's build of the same IR and
compares them.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak
        b += BK * sbk
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))


def cases():
    """(name, kernel, grid, args builder, constexprs, output index) for each."""
    n = 1 << 20

    def add_args():
        x = torch.rand(n, device="cuda")
        y = torch.rand(n, device="cuda")
        return [x, y, torch.empty_like(x), n]

    def softmax_args():
        x = torch.randn(4096, 781, device="cuda")
        return [torch.empty_like(x), x, x.stride(0), x.stride(0), x.shape[1]]

    def gelu_args():
        x = torch.randn(n, device="cuda")
        return [x, torch.empty_like(x), n]

    def matmul_args():
        M = N = K = 2048
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        return [a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                c.stride(0), c.stride(1)]

    return [
        ("add", add_kernel, (n // 1024,), add_args, {"BLOCK": 1024}, 2),
        ("softmax", softmax_kernel, (4096,), softmax_args, {"BLOCK": 1024}, 0),
        ("gelu", gelu_kernel, (n // 1024,), gelu_args, {"BLOCK": 1024}, 1),
        ("matmul", matmul_kernel, (2048 // 128, 2048 // 128), matmul_args,
         {"BM": 128, "BN": 128, "BK": 64}, 2),
    ]
