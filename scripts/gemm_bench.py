#!/usr/bin/env python3
"""Times GEMMs on this machine's GPU with PyTorch and writes the CSV that
`scaleout calibrate --gemm FILE` reads (docs/input-format.md, "calibrate"):

    m,n,k,dtype,time_s
    8192,8192,8192,bf16,0.00139

One row per shape and dtype: the median over --iters timed runs (CUDA
events) after --warmup untimed ones, C[m x n] = A[m x k] @ B[k x n].
Shapes: square sizes 1024..16384 and the skinny shapes of transformer
layers; --shapes M,N,K ... replaces them. --fp8 adds FP8 (e4m3) GEMMs
through torch._scaled_mm where the GPU has FP8 units (Hopper, Ada, Blackwell).

Usage: python3 scripts/gemm_bench.py -o gemm.csv [--dtypes bf16 fp16] [--fp8]
"""
import argparse
import statistics
import sys

DEFAULT_SHAPES = [(d, d, d) for d in (1024, 2048, 4096, 8192, 16384)] + [
    (4096, 4096, 14336), (4096, 14336, 4096), (8192, 1024, 8192), (8192, 28672, 8192),
    (16384, 8192, 2048), (2048, 8192, 28672),
]


def time_gemm(torch, fn, warmup, iters):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)  # ms -> s
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", required=True, help="CSV to write")
    p.add_argument("--dtypes", nargs="+", default=["bf16"], choices=["bf16", "fp16"])
    p.add_argument("--fp8", action="store_true", help="also FP8 GEMMs (torch._scaled_mm)")
    p.add_argument("--shapes", nargs="+", help="M,N,K triples (default: a built-in list)")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    a = p.parse_args()
    import torch  # imported late: --help works without PyTorch

    if not torch.cuda.is_available():
        sys.exit("gemm_bench.py: no CUDA GPU visible to PyTorch")
    shapes = [tuple(int(x) for x in s.split(",")) for s in a.shapes] if a.shapes else DEFAULT_SHAPES
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}
    rows = []
    for m, n, k in shapes:
        for name in a.dtypes:
            x = torch.randn(m, k, device="cuda", dtype=dt[name])
            w = torch.randn(k, n, device="cuda", dtype=dt[name])
            rows.append((m, n, k, name, time_gemm(torch, lambda: x @ w, a.warmup, a.iters)))
            del x, w
        if a.fp8:
            x = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            w = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()  # column-major B
            one = torch.tensor(1.0, device="cuda")
            fn = lambda: torch._scaled_mm(x, w, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            rows.append((m, n, k, "fp8", time_gemm(torch, fn, a.warmup, a.iters)))
            del x, w
        print(f"{m}x{n}x{k}: " + ", ".join(f"{r[3]} {2*m*n*k/r[4]/1e12:.0f} TFLOP/s"
                                         for r in rows if r[:3] == (m, n, k)), file=sys.stderr)
    with open(a.output, "w") as f:
        f.write(f"# {torch.cuda.get_device_name()} torch {torch.__version__}: scripts/gemm_bench.py\n")
        f.write("m,n,k,dtype,time_s\n")
        for m, n, k, name, t in rows:
            f.write(f"{m},{n},{k},{name},{t:.6g}\n")


if __name__ == "__main__":
    main()
