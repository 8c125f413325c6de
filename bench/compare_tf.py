#!/usr/bin/env python3
"""graphrt against TensorFlow on the same frozen graphs, in the same run.

Runs build/bench/model_bench (Google Benchmark, medians of repetitions) and times the same
frozen GraphDefs in TensorFlow's tf.compat.v1.Session with the same thread settings, then prints
each median latency and the ratio TensorFlow / graphrt (above 1: graphrt is faster).

    python3 bench/compare_tf.py [--repetitions 7] [--min-time 0.5]

Needs TensorFlow (pip install tensorflow-cpu); the test suite does not.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"mlp": "x:0", "cnn": "images:0"}


def graphrt_medians(binary, repetitions, min_time):
    """label -> (median real time in microseconds, counters)."""
    out = subprocess.run(
        [binary, f"--benchmark_repetitions={repetitions}", "--benchmark_format=json",
         f"--benchmark_min_time={min_time}", "--benchmark_report_aggregates_only=true"],
        check=True, capture_output=True, text=True).stdout
    medians = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["label"]] = b["real_time"]  # microseconds
            if "us_per_iteration" in b:
                medians[b["label"] + "/us_per_iteration"] = b["us_per_iteration"] * 1e6
    return medians


def tf_time(tf, graph_path, feeds, fetch, threads, repetitions, min_time):
    """Median microseconds per sess.run of a frozen graph in TensorFlow."""
    graph_def = tf.compat.v1.GraphDef()
    with open(graph_path, "rb") as f:
        graph_def.ParseFromString(f.read())
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                      inter_op_parallelism_threads=1)
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        run = sess.make_callable(fetch, feed_list=list(feeds))
        values = list(feeds.values())
        for _ in range(3):
            run(*values)
        samples = []
        for _ in range(repetitions):
            n, start = 0, time.perf_counter()
            while time.perf_counter() - start < min_time:
                run(*values)
                n += 1
            samples.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(samples)


def tf_median(tf, model, batch, threads, repetitions, min_time):
    graph_def = tf.compat.v1.GraphDef()
    with open(os.path.join(ROOT, "tests/fixtures/models", model + ".pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    x = np.load(os.path.join(ROOT, "tests/fixtures/models", f"{model}_batch{batch}.in0.npy"))
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads,
                                      inter_op_parallelism_threads=1)
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        run = sess.make_callable("probs:0", feed_list=[MODELS[model]])
        for _ in range(5):
            run(x)
        samples = []
        for _ in range(repetitions):
            n, start = 0, time.perf_counter()
            while time.perf_counter() - start < min_time:
                run(x)
                n += 1
            samples.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build/bench/model_bench"))
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf  # imported late: --help works without it

    ours = graphrt_medians(args.binary, args.repetitions, args.min_time)
    print(f"TensorFlow {tf.__version__}; medians of {args.repetitions} repetitions (microseconds)")
    print(f"{'model':6} {'batch':>5} {'threads':>7} {'graphrt':>10} {'tensorflow':>11} {'tf/graphrt':>10}")
    for model in MODELS:
        for batch in (1, 32):
            for threads in (1, 2):
                label = f"{model}/batch:{batch}/threads:{threads}"
                g = ours.get(label)
                t = tf_median(tf, model, batch, threads, args.repetitions, args.min_time)
                ratio = f"{t / g:.2f}x" if g else "n/a"
                g_text = f"{g:.1f}" if g else "n/a"
                print(f"{model:6} {batch:5d} {threads:7d} {g_text:>10} {t:11.1f} {ratio:>10}")
    cf = os.path.join(ROOT, "tests/fixtures/control_flow")
    x = np.load(os.path.join(cf, "dynamic_rnn_lstm_100_steps.in0.npy"))
    g = ours.get("dynamic_rnn_100")
    t = tf_time(tf, os.path.join(cf, "dynamic_rnn_lstm_100_steps.pb"), {"x:0": x}, "state:0", 1,
                args.repetitions, args.min_time)
    print(f"dynamic_rnn LSTM, 100 steps, batch 8, 1 thread: graphrt {g:.1f} us, TensorFlow "
          f"{t:.1f} us, tf/graphrt {t / g:.2f}x")
    g = ours.get("while_10000")
    t = tf_time(tf, os.path.join(cf, "while_count_n7.pb"), {"n:0": np.int32(10000)}, "acc_out:0", 1,
                args.repetitions, args.min_time)
    print(f"while loop overhead per iteration: graphrt {g / 10000:.3f} us, TensorFlow "
          f"{t / 10000:.3f} us, tf/graphrt {t / g:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
