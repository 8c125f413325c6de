#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets into OUT/<target>/ (default BUILD/fuzz-seeds), from
# tests/fixtures and ../shared/testdata/real. Seeds are derived from the files each run rather
# than committed (the shared files must not be copied into the repository); the committed
# corpora in tests/fuzz/corpus/ hold what fuzzing grew from them.
# Usage: tests/fuzz/make_seeds.sh BUILD_DIR [OUT]   (BUILD_DIR holds keras_fuzzer, for its seeds)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:?usage: make_seeds.sh BUILD_DIR [OUT]}
OUT=${2:-$BUILD/fuzz-seeds}
SHARED=../shared/testdata/real
FIX=tests/fixtures
rm -rf "$OUT"
mkdir -p "$OUT"/{graphdef,saved_model,tensor_bundle,npy,keras,placement_log,example,example_json,migration_rules,wav,zip}

# Small files only: big seeds make every execution slow and add little.
# small DIR... -- FIND_TESTS...
small() {
  local dirs=()
  while [ "$1" != -- ]; do dirs+=("$1"); shift; done
  shift
  find "${dirs[@]}" -type f -size -96k \( "$@" \) 2>/dev/null | sort
}
n=0
for f in $(small $FIX/models $FIX/control_flow $FIX/functional $FIX/tpu -- -name '*.pb' -o -name '*.pbtxt') \
         $(small $SHARED -- -name '*.pb' ! -name saved_model.pb ! -name fingerprint.pb \
           ! -name '*config.pb'); do
  n=$((n + 1)); cp "$f" "$OUT/graphdef/$n-$(basename "$f")"
done
n=0
for f in $(small $FIX -- -name '*.npy' | awk 'NR % 40 == 1') $(small $SHARED -- -name '*.npy'); do
  n=$((n + 1)); cp "$f" "$OUT/npy/$n-$(basename "$f")"
done
n=0
for f in $FIX/audio/model/clip.wav $(small $FIX/audio/errors -- -name '*.pb' | head -8); do
  n=$((n + 1)); cp "$f" "$OUT/wav/$n-$(basename "$f")"  # (the .pb seeds hold WAV bytes inside)
done
n=0
for f in $(small $FIX/keras3 -- -name '*.keras' | head -12); do
  n=$((n + 1)); cp "$f" "$OUT/zip/$n-$(basename "$f")"
done
cp $FIX/placement/*.log "$OUT/placement_log/"

python3 - "$OUT" "$FIX" "$SHARED" <<'PY'
import glob, os, struct, sys
out, fix, shared = sys.argv[1:4]

def part(b):  # tests/fuzz/fuzz_util.h: fixed32 little-endian size | bytes
    return struct.pack('<I', len(b)) + b

def read(p):
    with open(p, 'rb') as f:
        return f.read()

def write(target, name, data):
    with open(os.path.join(out, target, name), 'wb') as f:
        f.write(data)

LIMIT = 256 * 1024
# Checkpoints with one data shard: .index | data.
for i, index in enumerate(sorted(glob.glob(f'{fix}/**/*.index', recursive=True) +
                                 glob.glob(f'{shared}/**/*.index', recursive=True))):
    data = index[:-len('.index')] + '.data-00000-of-00001'
    if os.path.exists(data) and os.path.getsize(index) + os.path.getsize(data) < LIMIT:
        write('tensor_bundle', f'{i}-{os.path.basename(index)}', part(read(index)) + read(data))
# SavedModels: saved_model.pb | variables.index | variables data.
for i, pb in enumerate(sorted(glob.glob(f'{fix}/**/saved_model.pb', recursive=True) +
                              glob.glob(f'{shared}/**/saved_model.pb', recursive=True))):
    var = os.path.join(os.path.dirname(pb), 'variables', 'variables')
    index, data = read(var + '.index') if os.path.exists(var + '.index') else b'', b''
    if os.path.exists(var + '.data-00000-of-00001'):
        data = read(var + '.data-00000-of-00001')
    if os.path.getsize(pb) + len(index) + len(data) < LIMIT:
        write('saved_model', f'{i}-{os.path.basename(os.path.dirname(pb))}',
              part(read(pb)) + part(index) + data)

# tf.Example wire format by hand (proto/example.proto), so no protobuf module is needed.
def varint(v):
    b = b''
    while True:
        if v < 0x80:
            return b + bytes([v])
        b += bytes([v & 0x7f | 0x80]); v >>= 7
def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload
def feature(kind, values):
    if kind == 'float':
        return field(2, field(1, b''.join(struct.pack('<f', v) for v in values)))
    if kind == 'int64':
        return field(3, field(1, b''.join(varint(v & (2**64 - 1)) for v in values)))
    return field(1, b''.join(field(1, v) for v in values))
def features(d):
    return b''.join(field(1, field(1, k.encode()) + field(2, feature(*v))) for k, v in d.items())
def example(d):
    return field(1, features(d))
def sequence_example(context, lists):
    fl = b''.join(field(1, field(1, k.encode()) + field(2, b''.join(field(1, feature(*f))
                                                                    for f in steps)))
                  for k, steps in lists.items())
    return field(1, features(context)) + field(2, fl)

ex1 = example({'a': ('float', [1.5]), 'b': ('int64', [3, -4]), 'c': ('bytes', [b'x', b'yz'])})
ex2 = example({'a': ('float', [2.0, 3.0]), 'c': ('bytes', [b''])})
seq = sequence_example({'a': ('float', [1.0])},
                       {'a': [('float', [1.0]), ('float', [2.0])],
                        'b': [('int64', [7]), ('int64', [8, 9])],
                        'c': [('bytes', [b'p']), ('bytes', [b'q'])]})
# Header bytes (example_fuzzer.cc): mode, then the spec of "a", "b", "c".
specs = {'dense': bytes([0x00 | 0x10, 0x04 | 0x40, 0x08 | 0x10]),
         'varlen': bytes([0x01 | 0x10, 0x05, 0x09 | 0x10]),
         'sparse': bytes([0x02, 0x06, 0x0a]),
         'ragged': bytes([0x03, 0x07 | 0x20, 0x0b])}
for name, spec in specs.items():
    write('example', f'batch-{name}', bytes([0]) + spec + part(ex1) + part(ex2))
    write('example', f'named-{name}', bytes([4]) + spec + part(ex1) + part(ex2))
    write('example', f'single-{name}', bytes([1]) + spec + ex1)
    write('example', f'sequence-{name}', bytes([2]) + spec + part(seq) + part(seq))

jsons = {
    'mixed': '{"a": [1.5, 2], "b": [3, -4], "c": ["x", "yz"]}',
    'scalars': '{"age": 42, "name": "ada", "score": 0.5}',
    'b64': '{"img": [{"b64": "AAEC/w=="}], "tags": []}',
    'unicode': '{"t": ["\\u00e9t\\u00e9", "\\ud83d\\ude00"]}',
    'big': '{"x": [9223372036854775807, -9223372036854775808], "y": [1e308, -1e-308]}',
}
for name, text in jsons.items():
    write('example_json', name, text.encode())

rules = {
    'rename': '{"rename": {"float32/": "f32/"}, "strict": false}',
    'regex': '{"rename-regex": ["(.*)/row=$1/col"], "keep": "^b", "drop": ["mask"]}',
    'cast': '{"cast": ["bfloat16=float32", "float16=float32"], "shards": 2}',
    'partition': '{"merge-partitions": true, "partition": {"embedding": "2"}}',
    'slots': '{"drop-optimizer-slots": true, "drop-global-step": true, "use-ema": true}',
    'assignment': '{"assignment-map": {"partitioned/": "p/", "quad": "q"}}',
    'graph': '{"strip-tpu": true, "device-map": {"TPU": "CPU"}, "outputs": ["y"], "clear-devices": true}',
}
for name, text in rules.items():
    write('migration_rules', name, text.encode())
PY

# Keras: one seed per fixture, the fixture's own model_config (keras_fuzzer.cc writes them).
if [ -x "$BUILD/tests/fuzz/keras_fuzzer" ]; then
  GRAPHRT_FUZZ_WRITE_SEEDS="$OUT/keras" "$BUILD/tests/fuzz/keras_fuzzer" -runs=0 \
    >/dev/null 2>&1 || echo "make_seeds.sh: keras seeds failed" >&2
fi
for d in "$OUT"/*/; do printf '%-16s %4d seeds\n' "$(basename "$d")" "$(ls "$d" | wc -l)"; done
