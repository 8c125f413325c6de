#!/usr/bin/env python3
"""Restoring a checkpoint: graphrt against TensorFlow, and against reading the same files with
`cat`, in one run (page-cached: every reader runs after a warm-up pass).

Writes a ~200 MB checkpoint with TensorFlow (50 float32 variables of 1M elements, 2 shards) to a
temporary folder, then times, as medians of --passes runs:
  - graphrt: build/bench/checkpoint_read (BundleReader: open, read every tensor, checksums);
  - TensorFlow: tf.raw_ops.RestoreV2 of every tensor (what Saver.restore runs);
  - cat: `cat PREFIX.* > /dev/null`.

    python3 bench/compare_checkpoint.py [--passes 5] [--mb 200]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--mb", type=int, default=200)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    with tempfile.TemporaryDirectory() as tmp:
        n = max(1, args.mb // 4)
        variables = {f"var_{i:03d}": tf.Variable(np.random.default_rng(i).normal(
            size=(1000, 1000)).astype(np.float32)) for i in range(n)}
        ckpt = tf.train.Checkpoint(**variables)
        prefix = ckpt.write(os.path.join(tmp, "ckpt"),
                            options=tf.train.CheckpointOptions(experimental_io_device=None))
        files = [os.path.join(tmp, f) for f in os.listdir(tmp) if f.startswith("ckpt")]
        total = sum(os.path.getsize(f) for f in files)
        names = [name for name, _ in tf.train.list_variables(prefix)]
        dtypes = [tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()[k] for k in names]

        def timed(fn):
            fn()  # warm-up: page cache, allocator
            samples = []
            for _ in range(args.passes):
                start = time.perf_counter()
                fn()
                samples.append(time.perf_counter() - start)
            return statistics.median(samples)

        cat = timed(lambda: subprocess.run(["cat"] + files, stdout=subprocess.DEVNULL, check=True))
        tf_time = timed(lambda: tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=names,
                                                     shape_and_slices=[""] * len(names),
                                                     dtypes=dtypes))
        binary = os.path.join(ROOT, "build/bench/checkpoint_read")
        subprocess.run([binary, prefix, "1"], check=True, capture_output=True)
        out = subprocess.run([binary, prefix, str(args.passes)], check=True, capture_output=True,
                             text=True).stdout
        ours = json.loads(out)["median_seconds"]
    mb = total / 1e6
    print(f"checkpoint: {mb:.0f} MB, {len(names)} tensors; medians of {args.passes} passes")
    print(f"graphrt    {ours * 1e3:8.1f} ms  {mb / ours:8.0f} MB/s")
    print(f"TensorFlow {tf_time * 1e3:8.1f} ms  {mb / tf_time:8.0f} MB/s   tf/graphrt {tf_time / ours:.2f}x")
    print(f"cat        {cat * 1e3:8.1f} ms  {mb / cat:8.0f} MB/s   graphrt at {cat / ours:.2f} of cat's speed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
