#!/usr/bin/env python3
"""Writes the model zoo that ../shared/bench/run_compare.py times: one folder per model.

    PY bench/make_zoo.py --zoo DIR [--models mobilenet_v2,resnet50,efficientnet_b0,inception_v3]

PY: a Python with tensorflow-cpu 2.15.1, tf-keras, tf2onnx and numpy (the perf venv).

For each model, DIR/NAME/ gets frozen.pb (a frozen GraphDef), model.onnx (tf2onnx, opset 17,
input named `input`), input.npy (batch 1, float32) and meta.json (the input placeholder and the
output node of frozen.pb). The networks are tf.keras.applications ones with random weights
(seed 0) and classifier_activation=None. Random weights leave batch-norm statistics at their
defaults (mean 0, variance 1), which makes outputs nearly constant, so each batch norm takes its
statistics from one training-mode pass (momentum 0) over 8 pixel-range random images, and the
classifier's bias is set so that its logits are centred over 32 structured pixel-range images
(center_classifier). Too large
to commit: generate into a scratch or build folder.
"""
import argparse
import json
import os

os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')

import numpy as np
import tensorflow as tf
import tf_keras
from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

MODELS = {
    'mobilenet_v2': (tf_keras.applications.MobileNetV2, 224),
    'resnet50': (tf_keras.applications.ResNet50, 224),
    'efficientnet_b0': (tf_keras.applications.EfficientNetB0, 224),
    'inception_v3': (tf_keras.applications.InceptionV3, 299),
}


def settle_batch_norms(model, size):
    """Sets every batch norm's moving statistics to those of one batch of images."""
    for layer in model.submodules:
        if isinstance(layer, tf_keras.layers.BatchNormalization):
            layer.momentum = 0.0
    images = np.random.RandomState(1).uniform(0, 255, (8, size, size, 3)).astype(np.float32)
    model(images, training=True)


def pixel_images(count, size, seed):
    """Pixel-range images with some structure: a coarse random pattern at a random contrast, noise
    at a random level, a random brightness (what bench/quantize_compare.py feeds too)."""
    r = np.random.default_rng(seed)
    images = np.empty((count, size, size, 3), np.float32)
    for i in range(count):
        coarse = r.normal(0, 1, (4, 4, 3))
        pattern = np.kron(coarse, np.ones((size // 4 + 1, size // 4 + 1, 1)))[:size, :size]
        x = (128 + 60 * pattern * r.uniform(0.2, 1.5) + r.normal(0, r.uniform(5, 60), pattern.shape)
             + r.uniform(-40, 40))
        images[i] = np.clip(x, 0, 255)
    return images


def center_classifier(model, size):
    """Sets the classifier's bias to -W mean(features) over 32 pixel-range images. With random
    weights the logits' mean direction W mean(f) would otherwise pick the same class for almost
    every input; centred, the top-1 class follows the input (a quantization's top-1 agreement then
    means something)."""
    head = model.layers[-1]
    features = tf_keras.Model(model.inputs, head.input)(pixel_images(32, size, 3), training=False)
    kernel, bias = head.get_weights()
    head.set_weights([kernel, -np.mean(features.numpy(), axis=0) @ kernel])


def write_model(zoo, name):
    builder, size = MODELS[name]
    tf.random.set_seed(0)
    tf_keras.utils.set_random_seed(0)
    model = builder(weights=None, classifier_activation=None, input_shape=(size, size, 3))
    settle_batch_norms(model, size)
    center_classifier(model, size)
    folder = os.path.join(zoo, name)
    os.makedirs(folder, exist_ok=True)

    spec = tf.TensorSpec([None, size, size, 3], tf.float32, name='input')
    fn = tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    frozen = convert_variables_to_constants_v2(fn)
    graph_def = frozen.graph.as_graph_def()
    with open(os.path.join(folder, 'frozen.pb'), 'wb') as f:
        f.write(graph_def.SerializeToString())
    input_node = frozen.inputs[0].name.split(':')[0]
    output_node = frozen.outputs[0].name.split(':')[0]
    with open(os.path.join(folder, 'meta.json'), 'w') as f:
        json.dump({'input': input_node, 'output': output_node}, f, indent=1)

    import tf2onnx
    tf2onnx.convert.from_keras(model, input_signature=[spec], opset=17,
                               output_path=os.path.join(folder, 'model.onnx'))

    x = np.random.RandomState(2).uniform(0, 255, (1, size, size, 3)).astype(np.float32)
    np.save(os.path.join(folder, 'input.npy'), x)
    logits = frozen(tf.constant(x))[0].numpy()
    print(f'{name}: {len(graph_def.node)} nodes, logits std {logits.std():.3g}, '
          f'argmax {int(logits.argmax())}')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--zoo', required=True)
    p.add_argument('--models', default=','.join(MODELS))
    args = p.parse_args()
    for name in filter(None, args.models.split(',')):
        write_model(args.zoo, name)


if __name__ == '__main__':
    main()
