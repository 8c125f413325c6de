#!/usr/bin/env python3
"""int8 and float16 models from `graphrt quantize` against float32 graphrt and against ONNX
Runtime's own quantization, same run, each engine timed in native code (../shared/bench).

For each model (the fixture CNN and zoo models from bench/make_zoo.py):
  1. N inputs (default 200) in the model's input range (pixels for the zoo, [0, 1] for the CNN):
     a coarse random pattern, noise and brightness, each at a random level, so that float32's
     top-1 class varies (the zoo's classifier is centred by make_zoo.py); saved as a
     calibration folder.
  2. graphrt quantize MODEL.pb --mode int8-static / int8-dynamic / fp16-weights --calibration DIR
     --eval-split 0.2 --json: graphrt's own report (top-1 agreement and max relative logit error
     over calibration and held-out inputs, weight bytes).
  3. ONNX Runtime: quantize_static (QDQ, per-channel int8 weights, uint8 activations, MinMax)
     and quantize_dynamic on the same model's ONNX conversion with the same calibration inputs;
     top-1 agreement with ORT's float32 on the same N inputs.
  4. Speed: graphrt_bench and ort_bench (../shared/bench; build with bench/shared_bench.sh) on
     float32 and int8 of each, batch 1, one thread pinned to core 0, interleaved rounds; the
     figure is the median of the round medians.

    /work/venv/bin/python bench/quantize_compare.py --graphrt build/cli/graphrt \
        --bin /work/perf/bin --zoo /work/perf/zoo --scratch /work/perf/scratch \
        --work /work/perf/quant --models cnn,mobilenet_v2,resnet50
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def model_files(name, args):
    """(frozen .pb, input placeholder, output tensor of logits, ONNX file, input shape)."""
    if name == "cnn":
        return (os.path.join(SRC, "tests/fixtures/models/cnn.pb"), "images", "logits:0",
                os.path.join(args.scratch, "cnn.onnx"), (28, 28, 1))
    d = os.path.join(args.zoo, name)
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    shape = np.load(os.path.join(d, "input.npy")).shape[1:]
    return (os.path.join(d, "frozen.pb"), meta["input"], meta["output"] + ":0",
            os.path.join(d, "model.onnx"), shape)


def make_inputs(n, shape, seed, pixel_range):
    """Structured inputs in [0, pixel_range]: a coarse random pattern at a random contrast,
    noise at a random level and a random brightness (bench/make_zoo.py's pixel_images)."""
    r = np.random.default_rng(seed)
    h, w = shape[0], shape[1]
    out = np.empty((n,) + tuple(shape), np.float32)
    for i in range(n):
        coarse = r.normal(0, 1, (4, 4, shape[2]))
        pattern = np.kron(coarse, np.ones((h // 4 + 1, w // 4 + 1, 1)))[:h, :w]
        x = (0.5 + 0.25 * pattern * r.uniform(0.2, 1.5) + r.normal(0, r.uniform(0.02, 0.25), shape)
             + r.uniform(-0.15, 0.15))
        out[i] = np.clip(x, 0, 1) * pixel_range
    return out


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r.stdout


def graphrt_quantize(args, pb, key, output, calib, mode, dest):
    out = run([args.graphrt, "quantize", pb, dest, "--mode", mode, "--calibration", calib,
               "--eval-split", "0.2", "--output", output, "--json", "--force",
               "--timing-rounds", "0"])
    return json.loads(out[out.index("{"):])


def ort_quantize(onnx_path, dest, inputs, input_name, static):
    from onnxruntime import quantization as q  # noqa: PLC0415
    pre = dest + ".pre.onnx"
    try:
        q.quant_pre_process(onnx_path, pre, skip_symbolic_shape=True)
    except Exception:  # noqa: BLE001  (pre-processing is optional; ORT quantizes without it)
        pre = onnx_path
    if not static:
        q.quantize_dynamic(pre, dest, weight_type=q.QuantType.QInt8, per_channel=True)
        return

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            self.items = iter([{input_name: x[None]} for x in inputs])

        def get_next(self):
            return next(self.items, None)

    q.quantize_static(pre, dest, Reader(), quant_format=q.QuantFormat.QDQ, per_channel=True,
                      activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8,
                      calibrate_method=q.CalibrationMethod.MinMax)


def ort_top1(float_path, quant_path, inputs):
    import onnxruntime as ort  # noqa: PLC0415
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    a = ort.InferenceSession(float_path, opts, providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(quant_path, opts, providers=["CPUExecutionProvider"])
    name = a.get_inputs()[0].name
    agree, worst, classes = 0, 0.0, set()
    for x in inputs:
        fa = a.run(None, {name: x[None]})[0]
        fb = b.run(None, {name: x[None]})[0]
        agree += int(np.argmax(fa) == np.argmax(fb))
        classes.add(int(np.argmax(fa)))
        worst = max(worst, float(np.abs(fa - fb).max() / max(np.abs(fa).max(), 1e-30)))
    return agree / len(inputs), worst, len(classes)


def time_engine(binary, model, feed, output, args):
    cmd = ["taskset", "-c", "0", binary, "--model", model, "--input", feed, "--output", output,
           "--threads", "1", "--min-seconds", str(args.min_seconds)]
    out = run(cmd, env=dict(os.environ, LD_LIBRARY_PATH=args.bin))
    m = re.search(r"median_us=([0-9.]+)", out)
    if not m:
        raise RuntimeError(f"no median in: {out}")
    return float(m.group(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--graphrt", default=os.path.join(SRC, "build/cli/graphrt"))
    p.add_argument("--bin", required=True)
    p.add_argument("--zoo", required=True)
    p.add_argument("--scratch", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--models", default="cnn,mobilenet_v2,resnet50")
    p.add_argument("--examples", type=int, default=200)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--min-seconds", type=float, default=0.3)
    p.add_argument("--json")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    results = []
    for name in args.models.split(","):
        pb, key, output, onnx_path, shape = model_files(name, args)
        d = os.path.join(args.work, name)
        os.makedirs(os.path.join(d, "calib"), exist_ok=True)
        inputs = make_inputs(args.examples, shape, len(name), 1.0 if name == "cnn" else 255.0)
        np.save(os.path.join(d, "calib", key + ".npy"), inputs)
        np.save(os.path.join(d, "input_b1.npy"), inputs[:1])
        row = {"model": name}
        for mode in ("int8-static", "int8-dynamic", "fp16-weights"):
            dest = os.path.join(d, f"graphrt_{mode}.pb")
            rep = graphrt_quantize(args, pb, key, output, os.path.join(d, "calib"), mode, dest)
            row[mode] = {
                "top1": [x.get("top1_agreement") for x in rep["calibration"] + rep["eval"]],
                "distinct_top1": [x.get("distinct_top1") for x in rep["calibration"]],
                "max_rel": [x["max_rel_error"] for x in rep["calibration"] + rep["eval"]],
                "weights_ratio": rep["weight_bytes_after"] / max(1, rep["weight_bytes_before"]),
                "kept_float": len(rep["kept_float"]),
            }
        ort_out = {}
        for static in (True, False):
            dest = os.path.join(d, f"ort_{'static' if static else 'dynamic'}.onnx")
            ort_quantize(onnx_path, dest, inputs[: int(0.8 * len(inputs))],
                         _onnx_input(onnx_path), static)
            ort_out[static] = dest
            agree, worst, classes = ort_top1(onnx_path, dest, inputs)
            row["ort_" + ("static" if static else "dynamic")] = {
                "top1": agree, "max_rel": worst, "distinct_top1": classes}
        feed_g = f"{key}={os.path.join(d, 'input_b1.npy')}"
        feed_o = f"{_onnx_input(onnx_path)}={os.path.join(d, 'input_b1.npy')}"
        onnx_out = _onnx_output(onnx_path)
        engines = {
            "graphrt_f32": (os.path.join(args.bin, "graphrt_bench"), pb, feed_g, output),
            "graphrt_int8": (os.path.join(args.bin, "graphrt_bench"),
                             os.path.join(d, "graphrt_int8-static.pb"), feed_g, output),
            "graphrt_dyn": (os.path.join(args.bin, "graphrt_bench"),
                            os.path.join(d, "graphrt_int8-dynamic.pb"), feed_g, output),
            "ort_f32": (os.path.join(args.bin, "ort_bench"), onnx_path, feed_o, onnx_out),
            "ort_int8": (os.path.join(args.bin, "ort_bench"), ort_out[True], feed_o, onnx_out),
            "ort_dyn": (os.path.join(args.bin, "ort_bench"), ort_out[False], feed_o, onnx_out),
        }
        times = {k: [] for k in engines}
        order = list(engines)
        for r in range(args.rounds):
            for k in order[r % len(order):] + order[: r % len(order)]:
                times[k].append(time_engine(*engines[k], args))
        row["median_us"] = {k: statistics.median(v) for k, v in times.items()}
        row["spread"] = {k: max(v) / min(v) for k, v in times.items()}
        results.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| model | graphrt int8-static / f32 | int8-dynamic / f32 | graphrt int8 / ORT int8 | "
          "graphrt top-1 (calib, eval) | ORT static top-1 | distinct f32 top-1 | "
          "max rel logit err (graphrt, ORT) | f16 weights ratio, max rel |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in results:
        t = row["median_us"]
        s = row["int8-static"]
        f = row["fp16-weights"]
        print(f"| {row['model']} | {t['graphrt_int8'] / t['graphrt_f32']:.2f} | "
              f"{t['graphrt_dyn'] / t['graphrt_f32']:.2f} | {t['graphrt_int8'] / t['ort_int8']:.2f} | "
              f"{s['top1'][0]:.3f}, {s['top1'][1]:.3f} | {row['ort_static']['top1']:.3f} | "
              f"{s['distinct_top1'][0]} | {max(s['max_rel']):.3f}, "
              f"{row['ort_static']['max_rel']:.3f} | {f['weights_ratio']:.3f}, "
              f"{max(f['max_rel']):.2e} |")
    print()
    print("median us (1 thread, batch 1): " + "; ".join(
        f"{r['model']}: " + ", ".join(f"{k} {v:.0f}" for k, v in r["median_us"].items())
        for r in results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def _onnx_input(path):
    import onnx  # noqa: PLC0415
    return onnx.load(path, load_external_data=False).graph.input[0].name


def _onnx_output(path):
    import onnx  # noqa: PLC0415
    return onnx.load(path, load_external_data=False).graph.output[0].name


if __name__ == "__main__":
    sys.exit(main())
