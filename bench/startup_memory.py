#!/usr/bin/env python3
"""Start-up time and memory of one model in graphrt, TensorFlow's C API and ONNX Runtime's C API:
the three native programs of ../shared/bench (built by bench/shared_bench.sh), same inputs, one
thread pinned to core 0.

    python3 bench/startup_memory.py --bin PERF_BIN --zoo ZOO --scratch SCRATCH [--model resnet50]
        [--repeats 3]

For each engine, and each of `--repeats` rounds (engines rotating), it starts the program once
on the model with a single timed run and once on the fixture MLP (the baseline: the engine's
libraries and a tiny graph), and reads each process's peak RSS from wait4(). It prints, as
medians over the rounds:

  setup_s    the program's own figure: reading the model and creating the session (Create);
  first_run  Create + first Run: the process's time beyond the MLP baseline's, less the two
             further runs it makes (2 x the steady-state median, measured in a separate process
             that runs for a second); an estimate, which includes each engine's lazy work;
  steady     the steady-state median run;
  added_MiB  peak RSS of the model's process minus the MLP process's: the memory the model adds;
  read_s     reading the model file with a warm page cache, for the start-up goal
             (first_run <= 2 x steady + read_s).
Standard library only.
"""
import argparse
import os
import re
import statistics
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd):
    """Wall seconds, peak RSS (KiB) and stdout of one pinned process."""
    start = time.perf_counter()
    proc = subprocess.Popen(['taskset', '-c', '0'] + cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f'failed ({status}): {" ".join(cmd)}')
    return wall, usage.ru_maxrss, out


def field(out, name):
    return float(re.search(name + r'=([0-9.]+)', out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--zoo', required=True)
    ap.add_argument('--scratch', required=True)
    ap.add_argument('--model', default='resnet50')
    ap.add_argument('--repeats', type=int, default=3)
    args = ap.parse_args()
    zoo = os.path.join(args.zoo, args.model)
    fixtures = os.path.join(REPO, 'tests', 'fixtures', 'models')
    mlp_in = ['--input', 'x:0=' + os.path.join(fixtures, 'mlp_batch1.in0.npy'), '--output',
              'probs:0']
    model_in = ['--input', 'input=' + os.path.join(zoo, 'input.npy'), '--output', 'Identity:0']
    engines = {
        'graphrt': ('graphrt_bench', os.path.join(zoo, 'frozen.pb'), os.path.join(fixtures, 'mlp.pb')),
        'tf': ('tf_bench', os.path.join(zoo, 'frozen.pb'), os.path.join(fixtures, 'mlp.pb')),
        'ort': ('ort_bench', os.path.join(zoo, 'model.onnx'),
                os.path.join(args.scratch, 'mlp.onnx')),
    }
    once = ['--threads', '1', '--min-runs', '1', '--min-seconds', '0', '--warmup-seconds', '0']
    steady = ['--threads', '1', '--min-seconds', '1']
    results = {name: {'setup_s': [], 'first_run': [], 'steady': [], 'added_MiB': []}
               for name in engines}
    names = list(engines)
    for r in range(args.repeats):
        for name in names[r % len(names):] + names[:r % len(names)]:
            program, model, mlp = engines[name]
            exe = os.path.join(args.bin, program)
            wall, rss, out = run([exe, '--model', model] + model_in + once)
            base_wall, base_rss, base_out = run([exe, '--model', mlp] + mlp_in + once)
            _, _, steady_out = run([exe, '--model', model] + model_in + steady)
            median_s = field(steady_out, 'median_us') / 1e6
            overhead = base_wall - field(base_out, 'setup_s')
            results[name]['setup_s'].append(field(out, 'setup_s'))
            results[name]['first_run'].append(wall - overhead - 2 * median_s)
            results[name]['steady'].append(median_s)
            results[name]['added_MiB'].append((rss - base_rss) / 1024)
    pb = os.path.join(zoo, 'frozen.pb')
    with open(pb, 'rb') as f:
        f.read()
    start = time.perf_counter()
    with open(pb, 'rb') as f:
        f.read()
    read_s = time.perf_counter() - start
    print(f'{args.model}, batch 1, 1 thread (taskset -c 0), medians of {args.repeats} rounds; '
          f'reading frozen.pb (warm cache): {read_s:.3f} s')
    print('| engine | setup_s (read + Create) | Create + first Run, s | steady Run, s | '
          'first / (2 x steady + read) | memory the model adds, MiB |')
    print('|---|---|---|---|---|---|')
    for name in names:
        m = {k: statistics.median(v) for k, v in results[name].items()}
        goal = m['first_run'] / (2 * m['steady'] + read_s)
        print(f"| {name} | {m['setup_s']:.3f} | {m['first_run']:.3f} | {m['steady']:.4f} | "
              f"{goal:.2f} | {m['added_MiB']:.0f} |")


if __name__ == '__main__':
    main()
